import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { expectObject } from '../core/shape.js';
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
export class FundsApi extends EndpointGroup {
  async fundLimit(signal?: AbortSignal): Promise<FundLimit> {
    return this.readObject<FundLimit>('GET /fundlimit', signal);
  }

  /** POST /margincalculator: a read, so it is retried like one. */
  async margin(request: MarginRequest, signal?: AbortSignal): Promise<MarginResult> {
    checkId(request.securityId, 'securityId');
    checkQuantity(request.quantity);
    return this.sendRepeatable<MarginResult>('POST /margincalculator', this.withClientId(request), signal);
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
      svcClientId: this.transport.clientId,
      includePosition: 'false',
      includeOrder: 'false',
      ...request,
    };
    return this.callObject<MultiMarginResult>('POST /margincalculator/multi', {
      body,
      idempotent: true,
      signal,
    });
  }

  async setPnlExit(request: PnlExitRequest, signal?: AbortSignal): Promise<PnlExitResult> {
    return this.sendRepeatable<PnlExitResult>('POST /pnlExit', this.withClientId(request), signal);
  }

  async pnlExit(signal?: AbortSignal): Promise<PnlExitConfig> {
    const route = 'GET /pnlExit';
    const r = await this.transport.call({ method: 'GET', route, path: '/pnlExit', idempotent: true, signal });
    return expectObject<PnlExitConfig>(r.body, route);
  }

  /** POST /killswitch?killSwitchStatus=...; activation needs no open positions and no pending orders. */
  async setKillSwitch(status: KillSwitchStatus, signal?: AbortSignal): Promise<KillSwitchResult> {
    if (status !== 'ACTIVATE' && status !== 'DEACTIVATE') {
      throw invalidArgument('killSwitchStatus must be ACTIVATE or DEACTIVATE');
    }
    return this.callObject<KillSwitchResult>('POST /killswitch', {
      query: { killSwitchStatus: status },
      idempotent: true,
      signal,
    });
  }

  async killSwitch(signal?: AbortSignal): Promise<KillSwitchResult> {
    return this.readObject<KillSwitchResult>('GET /killswitch', signal);
  }
}
