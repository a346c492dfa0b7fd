import { EndpointGroup } from '../core/endpoint-call.js';
import { expectObject } from '../core/shape.js';
import type { IpResult, Profile, SetIpRequest, StaticIpSetting } from '../types/account.js';

/** Static IP whitelisting and the profile check. */
export class AccountApi extends EndpointGroup {
  /** POST /ip/setIP; the IP is then locked for 7 days. */
  async setIp(request: SetIpRequest, signal?: AbortSignal): Promise<IpResult> {
    return this.sendRepeatable<IpResult>('POST /ip/setIP', this.withClientId(request), signal);
  }

  /** PUT /ip/modifyIP; refused while the 7-day lock lasts. */
  async modifyIp(request: SetIpRequest, signal?: AbortSignal): Promise<IpResult> {
    return this.sendRepeatable<IpResult>('PUT /ip/modifyIP', this.withClientId(request), signal);
  }

  async getIp(signal?: AbortSignal): Promise<StaticIpSetting> {
    return this.readObject<StaticIpSetting>('GET /ip/getIP', signal);
  }

  /** GET /profile: verifies the token and shows the account's setup (segments, data plan). */
  async profile(signal?: AbortSignal): Promise<Profile> {
    const route = 'GET /profile';
    const r = await this.transport.call({ method: 'GET', route, path: '/profile', idempotent: true, signal });
    return expectObject<Profile>(r.body, route);
  }
}
