/** Options of createHistoryLoader, validated once; every default is documented here. */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
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

/** The broker section, with its range and default (BrokerOptions documents each). */
const BROKER_OPTIONS = {
  baseUrl: { kind: 'url', protocols: ['http', 'https'], required: true },
  clientId: { kind: 'string', required: true },
  timeoutMs: { kind: 'number', min: 1_000, max: 600_000, default: 60_000 },
} as const satisfies OptionsSchema;

/** Every option of createHistoryLoader, with its range and default (HistoryLoaderOptions documents each). */
const LOADER_OPTIONS = {
  broker: { kind: 'section', schema: BROKER_OPTIONS },
  universe: { kind: 'given', required: true },
  // Read by resolvePlan; absent, a JSON universe file's own plan applies.
  plan: { kind: 'given' },
  concurrency: { kind: 'number', min: 1, max: 64, default: 8 },
  maxAttempts: { kind: 'number', min: 1, max: 20, default: 4 },
  retryBaseMs: { kind: 'number', min: 0, max: 60_000, default: 1_000 },
  retryMaxMs: { kind: 'number', min: 0, max: 600_000, default: 30_000 },
  maxRequests: { kind: 'number', min: 1, max: Number.POSITIVE_INFINITY, default: Number.POSITIVE_INFINITY },
  maxSeconds: { kind: 'number', min: 1, max: Number.POSITIVE_INFINITY, default: Number.POSITIVE_INFINITY },
  dailyBudget: { kind: 'number', min: 1, max: 10_000_000, default: 100_000 },
  flushRows: { kind: 'number', min: 1, max: 10_000_000, default: 50_000 },
  flushIntervalMs: { kind: 'number', min: 10, max: 600_000, default: 1_000 },
  maxBufferedRows: { kind: 'number', min: 1, max: 100_000_000, default: 400_000 },
  migrate: { kind: 'boolean', default: true },
  startupQuietMs: { kind: 'number', min: 0, max: 60_000, default: 1_100 },
} as const satisfies OptionsSchema;

export function resolveOptions(options: HistoryLoaderOptions): ResolvedOptions {
  const v = readOptions(LOADER_OPTIONS, options, { where: 'history loader options', fail: configError });
  const { broker } = v;
  const universe =
    typeof options.universe === 'string'
      ? readUniverseFile(options.universe)
      : Array.isArray(options.universe)
        ? options.universe.map((u, i) => universeInstrument(u, `universe row ${i + 1}`))
        : undefined;
  if (universe === undefined)
    throw configError('history loader option universe must be a file path or an array');
  return {
    ...v,
    broker: { ...broker, baseUrl: broker.baseUrl.replace(/\/+$/, '') },
    universe,
    // An explicit plan wins; else a JSON universe file's own plan; else the defaults.
    plan: resolvePlan(
      options.plan ??
        (typeof options.universe === 'string'
          ? (readUniversePlan(options.universe) as PlanOptions | undefined)
          : undefined),
    ),
    maxBufferedRows: Math.max(v.flushRows, v.maxBufferedRows),
  };
}
