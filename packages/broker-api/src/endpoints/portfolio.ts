import { expectArray } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type { ConvertPositionRequest, Holding, Position } from '../types/portfolio.js';

/** Positions (list, convert, exit all) and holdings. */
export class PortfolioApi {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  async positions(signal?: AbortSignal): Promise<Position[]> {
    const route = 'GET /positions';
    const r = await this.#t.call({ method: 'GET', route, path: '/positions', idempotent: true, signal });
    return expectArray<Position>(r.body, route);
  }

  /** POST /positions/convert; 202 without body. Needs a whitelisted static IP. */
  async convertPosition(request: ConvertPositionRequest, signal?: AbortSignal): Promise<void> {
    const route = 'POST /positions/convert';
    const body = { svcClientId: this.#t.clientId, ...request };
    await this.#t.call({
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
    await this.#t.call({ method: 'DELETE', route, path: '/positions', idempotent: true, signal });
  }

  async holdings(signal?: AbortSignal): Promise<Holding[]> {
    const route = 'GET /holdings';
    const r = await this.#t.call({ method: 'GET', route, path: '/holdings', idempotent: true, signal });
    return expectArray<Holding>(r.body, route);
  }
}
