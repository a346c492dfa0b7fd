/** Options of createHistoryLoader, validated once; every default is documented here. */
import type { TokenSource } from '@feedpipe/broker-api';
import { configError } from './errors.js';
import { type PlanOptions, type ResolvedPlan, resolvePlan } from './plan-options.js';
import {
  readUniverseFile,
  readUniversePlan,
  type UniverseInstrument,
  type UniverseRow,
  universeInstrument,
} from './universe.js';

export interface BrokerOptions {
  /** `{base_url}` of the service (the REST API is under /v2). Required. */
  baseUrl: string;
  /** svcClientId of the account whose budget the loader spends. Required. */
  clientId: string;
  /** The access token, or a holder that renews it. Required. Never logged. */
  accessToken: string | TokenSource;
  /** Per request, reading the answer included. Default 60,000 ms (years of candles are large). */
  timeoutMs?: number;
}

export interface HistoryLoaderOptions {
  broker: BrokerOptions;
  /** The instruments: parsed rows, or the path of a universe file (JSON or CSV). Required. */
  universe: readonly UniverseRow[] | string;
  /** What to load. Default: the `plan` of a JSON universe file, else the defaults of PlanOptions. */
  plan?: PlanOptions;
  /** Units whose request is waiting or running at once. Default 8 (enough to keep 5/s busy). */
  concurrency?: number;
  /** Attempts per unit and run for transient errors. Default 4. */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt with jitter. Default 1,000 ms. */
  retryBaseMs?: number;
  /** Retry delay cap. Default 30,000 ms. */
  retryMaxMs?: number;
  /** Stop starting units after this many (a demo or a budget slice). Default: no bound. */
  maxRequests?: number;
  /** Stop starting units after this many seconds; running ones finish. Default: no bound. */
  maxSeconds?: number;
  /** Data API requests per rolling day for this account. Default 100,000 (spec). */
  dailyBudget?: number;
  /** Writer: flush at this many buffered rows. Default 50,000. */
  flushRows?: number;
  /** Writer: flush at least this often. Default 1,000 ms. */
  flushIntervalMs?: number;
  /** Writer: fetchers wait while more rows are buffered. Default 400,000. */
  maxBufferedRows?: number;
  /** Apply the store's migrations before loading. Default true. */
  migrate?: boolean;
  /**
   * Wait before the first request when the loader makes its own limiter, so requests a previous
   * process sent just before it stopped have left the service's 1-second window. Default 1,100 ms.
   */
  startupQuietMs?: number;
}

export interface ResolvedOptions {
  broker: Required<BrokerOptions>;
  universe: UniverseInstrument[];
  plan: ResolvedPlan;
  concurrency: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxRequests: number;
  maxSeconds: number;
  dailyBudget: number;
  flushRows: number;
  flushIntervalMs: number;
  maxBufferedRows: number;
  migrate: boolean;
  startupQuietMs: number;
}

const KEYS = [
  'broker',
  'universe',
  'plan',
  'concurrency',
  'maxAttempts',
  'retryBaseMs',
  'retryMaxMs',
  'maxRequests',
  'maxSeconds',
  'dailyBudget',
  'flushRows',
  'flushIntervalMs',
  'maxBufferedRows',
  'migrate',
  'startupQuietMs',
];
const BROKER_KEYS = ['baseUrl', 'clientId', 'accessToken', 'timeoutMs'];

type Rec = Record<string, unknown>;

function num(r: Rec, key: string, dflt: number, min: number, max: number, where = 'history loader'): number {
  const v = r[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw configError(`${where} option ${key} must be a number from ${min} to ${max}`);
  }
  return v;
}

function rejectUnknown(r: Rec, keys: readonly string[], where: string): void {
  for (const key of Object.keys(r)) {
    if (!keys.includes(key))
      throw configError(`unknown ${where} option "${key}" (allowed: ${keys.join(', ')})`);
  }
}

export function resolveOptions(options: HistoryLoaderOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    throw configError('history loader options must be an object');
  const r = options as unknown as Rec;
  rejectUnknown(r, KEYS, 'history loader');
  const b = r.broker as Rec | undefined;
  if (typeof b !== 'object' || b === null) throw configError('history loader option broker is required');
  rejectUnknown(b, BROKER_KEYS, 'broker');
  if (typeof b.baseUrl !== 'string' || !/^https?:\/\//.test(b.baseUrl)) {
    throw configError('broker.baseUrl must be an http(s) URL');
  }
  if (typeof b.clientId !== 'string' || b.clientId === '') throw configError('broker.clientId is required');
  const token = b.accessToken;
  const tokenOk =
    (typeof token === 'string' && token !== '') ||
    (typeof token === 'object' && token !== null && typeof (token as TokenSource).getToken === 'function');
  if (!tokenOk) throw configError('broker.accessToken must be a token or a TokenSource');
  const universe =
    typeof options.universe === 'string'
      ? readUniverseFile(options.universe)
      : Array.isArray(options.universe)
        ? options.universe.map((u, i) => universeInstrument(u, `universe row ${i + 1}`))
        : undefined;
  if (universe === undefined)
    throw configError('history loader option universe must be a file path or an array');
  const flushRows = num(r, 'flushRows', 50_000, 1, 10_000_000);
  return {
    broker: {
      baseUrl: b.baseUrl.replace(/\/+$/, ''),
      clientId: b.clientId,
      accessToken: token as string | TokenSource,
      timeoutMs: num(b, 'timeoutMs', 60_000, 1_000, 600_000, 'broker'),
    },
    universe,
    // An explicit plan wins; else a JSON universe file's own plan; else the defaults.
    plan: resolvePlan(
      options.plan ??
        (typeof options.universe === 'string'
          ? (readUniversePlan(options.universe) as PlanOptions | undefined)
          : undefined),
    ),
    concurrency: num(r, 'concurrency', 8, 1, 64),
    maxAttempts: num(r, 'maxAttempts', 4, 1, 20),
    retryBaseMs: num(r, 'retryBaseMs', 1_000, 0, 60_000),
    retryMaxMs: num(r, 'retryMaxMs', 30_000, 0, 600_000),
    maxRequests: num(r, 'maxRequests', Number.POSITIVE_INFINITY, 1, Number.POSITIVE_INFINITY),
    maxSeconds: num(r, 'maxSeconds', Number.POSITIVE_INFINITY, 1, Number.POSITIVE_INFINITY),
    dailyBudget: num(r, 'dailyBudget', 100_000, 1, 10_000_000),
    flushRows,
    flushIntervalMs: num(r, 'flushIntervalMs', 1_000, 10, 600_000),
    maxBufferedRows: Math.max(flushRows, num(r, 'maxBufferedRows', 400_000, 1, 100_000_000)),
    migrate: r.migrate === undefined ? true : r.migrate === true,
    startupQuietMs: num(r, 'startupQuietMs', 1_100, 0, 60_000),
  };
}
