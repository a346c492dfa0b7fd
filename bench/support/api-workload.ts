/**
 * The requests of `bench:api`: what each client asks for next, drawn from a seeded generator so two
 * runs ask the same sequence. Shared by the load process (api-load-process.ts), which sends them,
 * and bench/api.ts, which describes them.
 *
 * Workloads:
 *  - `history` (default; `bars` before the hot tier): 1-minute bars of a random instrument over a random range of whole days
 *    (1 to `maxSpanDays` days starting on a random day of the data set), the notebook that fans
 *    out over many instruments. With `single`, always the first instrument's first day (the
 *    one-instrument case the result cache answers).
 *  - `recent`: 1-minute bars of a random instrument over 1 hour to one whole trading session
 *    (03:45 to 10:00 UTC), on one of the data set's last two days: the ranges the query API's hot
 *    tier holds in memory (its window: today and yesterday).
 *  - `mixed`: the routes a research desk and its dashboards use together, by weight: bars at a
 *    random interval (40%), a page of ticks (20%), daily or intraday candles (15%), movers or most
 *    active over a window (15%), and read-only SQL with a parameter through POST /v1/sql (10%).
 */

export type Workload = 'history' | 'recent' | 'mixed';

export interface WorkloadSpec {
  workload: Workload;
  /** First security id; instruments are firstId .. firstId + instruments - 1. */
  firstId: number;
  instruments: number;
  /** First day of the data set (YYYY-MM-DD, UTC) and how many consecutive days it covers. */
  firstDay: string;
  days: number;
  maxSpanDays: number;
  single: boolean;
  seed: number;
}

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const DAY_MS = 86_400_000;

/** mulberry32: a tiny seeded PRNG (quality is ample for picking instruments and ranges). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const BAR_INTERVALS = ['1m', '5m', '15m', '1h'] as const;
const WINDOWS = ['15m', '1h', '1d'] as const;
const SQL_TEXT =
  "SELECT toStartOfHour(received_at) AS hour, count() AS ticks, max(ltp) AS high, min(ltp) AS low FROM market.ticks WHERE security_id = {sid:UInt32} AND received_at >= toDateTime64({from:String}, 6, 'UTC') AND received_at < toDateTime64({to:String}, 6, 'UTC') GROUP BY hour ORDER BY hour";

export class WorkloadGenerator {
  readonly #spec: WorkloadSpec;
  readonly #random: () => number;
  readonly #day0: number;

  constructor(spec: WorkloadSpec) {
    this.#spec = spec;
    this.#random = seededRandom(spec.seed);
    this.#day0 = Date.parse(`${spec.firstDay}T00:00:00Z`);
  }

  next(): BenchRequest {
    if (this.#spec.workload === 'history') return this.#bars('1m');
    if (this.#spec.workload === 'recent') return this.#recentBars();
    const pick = this.#random();
    if (pick < 0.4) return this.#bars(this.#choose(BAR_INTERVALS));
    if (pick < 0.6) return this.#ticks();
    if (pick < 0.75) return this.#candles();
    if (pick < 0.9) return this.#ranking();
    return this.#sql();
  }

  #int(n: number): number {
    return Math.floor(this.#random() * n);
  }

  #choose<T>(items: readonly T[]): T {
    return items[this.#int(items.length)] as T;
  }

  #instrument(): number {
    return this.#spec.single ? this.#spec.firstId : this.#spec.firstId + this.#int(this.#spec.instruments);
  }

  /** A range of whole days inside the data set: [from, to) as ISO dates. */
  #dayRange(): { from: string; to: string } {
    if (this.#spec.single) return { from: this.#iso(0), to: this.#iso(1) };
    const first = this.#int(this.#spec.days);
    const span = 1 + this.#int(Math.min(this.#spec.maxSpanDays, this.#spec.days - first));
    return { from: this.#iso(first), to: this.#iso(first + span) };
  }

  #iso(day: number): string {
    return new Date(this.#day0 + day * DAY_MS).toISOString().slice(0, 10);
  }

  #bars(interval: string): BenchRequest {
    const { from, to } = this.#dayRange();
    return {
      method: 'GET',
      path: `/v1/instruments/${this.#instrument()}/bars?from=${from}&to=${to}&interval=${interval}`,
    };
  }

  /** 1-minute bars over 60 to 375 whole minutes of a session on one of the last two days. */
  #recentBars(): BenchRequest {
    const day = Math.max(0, this.#spec.days - 2) + this.#int(Math.min(2, this.#spec.days));
    const spanMin = 60 + this.#int(375 - 60 + 1);
    const startMin = 225 + this.#int(375 - spanMin + 1);
    const from = this.#day0 + day * DAY_MS + startMin * 60_000;
    const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
    return {
      method: 'GET',
      path: `/v1/instruments/${this.#instrument()}/bars?from=${iso(from)}&to=${iso(from + spanMin * 60_000)}&interval=1m`,
    };
  }

  #ticks(): BenchRequest {
    const day = this.#int(this.#spec.days);
    // A page starting at a random minute of the trading session (03:45 to 10:00 UTC).
    const from = new Date(this.#day0 + day * DAY_MS + (225 + this.#int(375)) * 60_000).toISOString();
    return {
      method: 'GET',
      path: `/v1/instruments/${this.#instrument()}/ticks?from=${from}&to=${this.#iso(day + 1)}&limit=500`,
    };
  }

  #candles(): BenchRequest {
    const id = this.#instrument();
    if (this.#random() < 0.5) {
      return {
        method: 'GET',
        path: `/v1/instruments/${id}/candles/daily?from=2023-03-01&to=${this.#iso(0)}`,
      };
    }
    const { from, to } = this.#dayRange();
    return { method: 'GET', path: `/v1/instruments/${id}/candles/intraday?from=${from}&to=${to}&interval=5` };
  }

  #ranking(): BenchRequest {
    const day = this.#int(this.#spec.days);
    // The window ends at a random minute of the session.
    const to = new Date(this.#day0 + day * DAY_MS + (240 + this.#int(360)) * 60_000).toISOString();
    const window = this.#choose(WINDOWS);
    const route = this.#random() < 0.5 ? 'movers?direction=gainers' : 'most-active?by=volume';
    return { method: 'GET', path: `/v1/${route}&window=${window}&to=${to}&limit=20` };
  }

  #sql(): BenchRequest {
    const { from, to } = this.#dayRange();
    return {
      method: 'POST',
      path: '/v1/sql',
      body: JSON.stringify({ sql: SQL_TEXT, params: { sid: this.#instrument(), from, to } }),
    };
  }
}
