import { EndpointGroup } from '../core/endpoint-call.js';
import type { ConvertPositionRequest, Holding, Position } from '../types/portfolio.js';

/** Positions (list, convert, exit all) and holdings. */
export class PortfolioApi extends EndpointGroup {
  async positions(signal?: AbortSignal): Promise<Position[]> {
    return this.readList<Position>('GET /positions', signal);
  }

  /** POST /positions/convert; 202 without body. Needs a whitelisted static IP. */
  async convertPosition(request: ConvertPositionRequest, signal?: AbortSignal): Promise<void> {
    const route = 'POST /positions/convert';
    const body = { svcClientId: this.transport.clientId, ...request };
    await this.transport.call({
      method: 'POST',
      route,
      path: '/positions/convert',
      body,
      idempotent: false,
      signal,
    });
  }

  /**
   * DELETE /positions: exits every position and cancels every open order of the day; 202 without
   * body. Repeating it is harmless, so it is retried on lost answers.
   */
  async exitAll(signal?: AbortSignal): Promise<void> {
    const route = 'DELETE /positions';
    await this.transport.call({ method: 'DELETE', route, path: '/positions', idempotent: true, signal });
  }

  async holdings(signal?: AbortSignal): Promise<Holding[]> {
    return this.readList<Holding>('GET /holdings', signal);
  }
}
