import { callObject } from '../core/endpoint-call.js';
import { expectObject } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type { IpResult, Profile, SetIpRequest, StaticIpSetting } from '../types/account.js';

/** Static IP whitelisting and the profile check. */
export class AccountApi {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** POST /ip/setIP; the IP is then locked for 7 days. */
  async setIp(request: SetIpRequest, signal?: AbortSignal): Promise<IpResult> {
    const body = { svcClientId: this.#t.clientId, ...request };
    return callObject<IpResult>(this.#t, 'POST /ip/setIP', {
      body,
      idempotent: true,
      signal,
    });
  }

  /** PUT /ip/modifyIP; refused while the 7-day lock lasts. */
  async modifyIp(request: SetIpRequest, signal?: AbortSignal): Promise<IpResult> {
    const body = { svcClientId: this.#t.clientId, ...request };
    return callObject<IpResult>(this.#t, 'PUT /ip/modifyIP', {
      body,
      idempotent: true,
      signal,
    });
  }

  async getIp(signal?: AbortSignal): Promise<StaticIpSetting> {
    const route = 'GET /ip/getIP';
    const r = await this.#t.call({ method: 'GET', route, path: '/ip/getIP', idempotent: true, signal });
    return expectObject<StaticIpSetting>(r.body, route);
  }

  /** GET /profile: verifies the token and shows the account's setup (segments, data plan). */
  async profile(signal?: AbortSignal): Promise<Profile> {
    const route = 'GET /profile';
    const r = await this.#t.call({ method: 'GET', route, path: '/profile', idempotent: true, signal });
    return expectObject<Profile>(r.body, route);
  }
}
