import { callObject } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { expectObject } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type { KillSwitchStatus } from '../types/enums.js';
import type {
  FundLimit,
  KillSwitchResult,
  MarginRequest,
  MarginResult,
  MultiMarginRequest,
  MultiMarginResult,
  PnlExitConfig,
  PnlExitRequest,
  PnlExitResult,
} from '../types/funds.js';
import { checkId, checkQuantity } from './order-input.js';

/** Funds, margin calculators and the risk controls (P&L exit, kill switch). */
export class FundsApi {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  async fundLimit(signal?: AbortSignal): Promise<FundLimit> {
    const route = 'GET /fundlimit';
    const r = await this.#t.call({ method: 'GET', route, path: '/fundlimit', idempotent: true, signal });
    return expectObject<FundLimit>(r.body, route);
  }

  /** POST /margincalculator: a read, so it is retried like one. */
  async margin(request: MarginRequest, signal?: AbortSignal): Promise<MarginResult> {
    checkId(request.securityId, 'securityId');
    checkQuantity(request.quantity);
    const body = { svcClientId: this.#t.clientId, ...request };
    return callObject<MarginResult>(this.#t, 'POST /margincalculator', {
      body,
      idempotent: true,
      signal,
    });
  }

  async marginMulti(request: MultiMarginRequest, signal?: AbortSignal): Promise<MultiMarginResult> {
    if (!Array.isArray(request.scripList) || request.scripList.length === 0) {
      throw invalidArgument('scripList must hold at least one scrip');
    }
    for (const scrip of request.scripList) {
      checkId(scrip.securityId, 'scripList[].securityId');
      checkQuantity(scrip.quantity, 'scripList[].quantity');
    }
    const body = {
      svcClientId: this.#t.clientId,
      includePosition: 'false',
      includeOrder: 'false',
      ...request,
    };
    return callObject<MultiMarginResult>(this.#t, 'POST /margincalculator/multi', {
      body,
      idempotent: true,
      signal,
    });
  }

  async setPnlExit(request: PnlExitRequest, signal?: AbortSignal): Promise<PnlExitResult> {
    const route = 'POST /pnlExit';
    const body = { svcClientId: this.#t.clientId, ...request };
    const r = await this.#t.call({ method: 'POST', route, path: '/pnlExit', body, idempotent: true, signal });
    return expectObject<PnlExitResult>(r.body, route);
  }

  async pnlExit(signal?: AbortSignal): Promise<PnlExitConfig> {
    const route = 'GET /pnlExit';
    const r = await this.#t.call({ method: 'GET', route, path: '/pnlExit', idempotent: true, signal });
    return expectObject<PnlExitConfig>(r.body, route);
  }

  /** POST /killswitch?killSwitchStatus=...; activation needs no open positions and no pending orders. */
  async setKillSwitch(status: KillSwitchStatus, signal?: AbortSignal): Promise<KillSwitchResult> {
    if (status !== 'ACTIVATE' && status !== 'DEACTIVATE') {
      throw invalidArgument('killSwitchStatus must be ACTIVATE or DEACTIVATE');
    }
    return callObject<KillSwitchResult>(this.#t, 'POST /killswitch', {
      query: { killSwitchStatus: status },
      idempotent: true,
      signal,
    });
  }

  async killSwitch(signal?: AbortSignal): Promise<KillSwitchResult> {
    const route = 'GET /killswitch';
    const r = await this.#t.call({ method: 'GET', route, path: '/killswitch', idempotent: true, signal });
    return expectObject<KillSwitchResult>(r.body, route);
  }
}
