/**
 * The key flood of issue #37: requests at a steady rate with made-up API keys against both HTTP
 * services (`/v1/sql` and `/clickhouse` of the query API, `/v1/orders` and the postback route of
 * the trading gateway), and a share of wrong secrets for key ids the services do hold. It comes
 * from many loopback addresses (127.1.x.y), so the per-address gate sees a crowd, not one client,
 * and most guesses reach the key check; the benchmark's own probes come from 127.0.0.1.
 *
 * Bounded in time (the caller's stop) and in flight: a request that would exceed `maxInFlight` is
 * not sent but counted (`skipped`), so a slow server cannot make this process grow.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { floodAddress } from './flood-addresses.js';
import { RESTING_ORDER } from './flood-order.js';

export interface KeyFloodTargets {
  apiUrl: string;
  gatewayUrl: string;
  /** Key ids the services hold: the share of wrong secrets is sent for them. */
  knownQueryKeyId: string;
  knownTradeKeyId: string;
}

export interface KeyFloodOptions {
  ratePerSecond: number;
  /** Loopback source addresses the flood is spread over. */
  addresses: number;
  /** Fraction of requests that carry a wrong secret for a known key id. */
  wrongSecretShare: number;
  maxInFlight: number;
}

export interface KeyFloodReport {
  sent: number;
  /** Not sent: `maxInFlight` requests were already waiting. */
  skipped: number;
  /** Answers by route and status code; transport failures under their error code. */
  status: Record<string, Record<string, number>>;
}

type Route = 'sql' | 'clickhouse' | 'orders' | 'postback';
const ROUTES: readonly Route[] = ['sql', 'clickhouse', 'orders', 'postback'];

/** A key of the services' shape (`fpk_<16 hex>_<43 base64url>`), random. */
function madeUpKey(keyId = randomBytes(8).toString('hex')): string {
  return `fpk_${keyId}_${randomBytes(32).toString('base64url')}`;
}

const ORDER_BODY = JSON.stringify(RESTING_ORDER);

interface Shot {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function shot(route: Route, targets: KeyFloodTargets, wrongSecret: boolean): Shot {
  const json = { 'content-type': 'application/json' };
  switch (route) {
    case 'sql': {
      const key = madeUpKey(wrongSecret ? targets.knownQueryKeyId : undefined);
      const body = JSON.stringify({ sql: 'SELECT 1' });
      return {
        url: new URL('/v1/sql', targets.apiUrl),
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body,
      };
    }
    case 'clickhouse': {
      const key = madeUpKey(wrongSecret ? targets.knownQueryKeyId : undefined);
      const auth = `Basic ${Buffer.from(`default:${key}`).toString('base64')}`;
      return {
        url: new URL('/clickhouse?query=SELECT%201', targets.apiUrl),
        method: 'GET',
        headers: { authorization: auth },
      };
    }
    case 'orders': {
      const key = madeUpKey(wrongSecret ? targets.knownTradeKeyId : undefined);
      return {
        url: new URL('/v1/orders', targets.gatewayUrl),
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body: ORDER_BODY,
      };
    }
    case 'postback':
      return {
        url: new URL(`/postbacks/orders/${randomBytes(24).toString('base64url')}`, targets.gatewayUrl),
        method: 'POST',
        headers: json,
        body: JSON.stringify({ orderId: '1', orderStatus: 'TRADED' }),
      };
  }
}

export class KeyFlood {
  readonly #targets: KeyFloodTargets;
  readonly #options: KeyFloodOptions;
  readonly #agents: Agent[];
  readonly #report: KeyFloodReport = { sent: 0, skipped: 0, status: {} };
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #next = 0;

  constructor(targets: KeyFloodTargets, options: KeyFloodOptions) {
    this.#targets = targets;
    this.#options = options;
    // One small keep-alive pool per source address, as that many clients would hold.
    this.#agents = Array.from(
      { length: options.addresses },
      (_, i) => new Agent({ keepAlive: true, maxSockets: 4, localAddress: floodAddress(i) }),
    );
  }

  /**
   * Sends every 10 ms what the rate owes since the start: paced on the clock, not on the ticks, so a
   * late timer on a loaded machine sends its backlog (at most a second's worth) instead of less.
   */
  start(): void {
    const began = performance.now();
    let fired = 0;
    this.#timer = setInterval(() => {
      const owed = Math.floor(((performance.now() - began) / 1000) * this.#options.ratePerSecond);
      const now = Math.min(owed - fired, this.#options.ratePerSecond);
      for (let i = 0; i < now; i += 1) this.#fire();
      fired = owed;
    }, 10);
  }

  stop(): KeyFloodReport {
    if (this.#timer) clearInterval(this.#timer);
    for (const agent of this.#agents) agent.destroy();
    return this.#report;
  }

  #count(label: string, outcome: string): void {
    const byStatus = this.#report.status[label] ?? {};
    byStatus[outcome] = (byStatus[outcome] ?? 0) + 1;
    this.#report.status[label] = byStatus;
  }

  #fire(): void {
    if (this.#inFlight >= this.#options.maxInFlight) {
      this.#report.skipped += 1;
      return;
    }
    const n = this.#next++;
    const route = ROUTES[n % ROUTES.length] as Route;
    const wrongSecret = route !== 'postback' && Math.random() < this.#options.wrongSecretShare;
    const s = shot(route, this.#targets, wrongSecret);
    const agent = this.#agents[n % this.#agents.length];
    this.#inFlight += 1;
    this.#report.sent += 1;
    const label = wrongSecret ? `${route}-wrong-secret` : route;
    let settled = false;
    const settle = (outcome: string): void => {
      if (settled) return;
      settled = true;
      this.#inFlight -= 1;
      this.#count(label, outcome);
    };
    const req = request(s.url, { method: s.method, headers: s.headers, agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => settle(String(res.statusCode)));
      res.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'error'));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'error'));
    req.end(s.body);
  }
}
