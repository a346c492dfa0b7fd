/**
 * history-loader CLI. Configuration from the environment (ARCHITECTURE.md): SVC_BASE_URL,
 * SVC_CLIENT_ID, SVC_TOKEN_SOURCE and its variables (docs/configuration.md, Credentials), CLICKHOUSE_URL (unset: embedded chDB in DATA_DIR/chdb, DATA_DIR
 * default .data, the same directory the sink and `npm start` use), METRICS_HOST (default 127.0.0.1).
 * Flags:
 *   --universe <file>      universe JSON or CSV (required); a JSON file's "plan" object is the plan
 *   --plan <file>          a JSON plan (PlanOptions), overriding the universe file's
 *   --dry-run              print the plan (units, requests, days of budget) and exit
 *   --max-requests <n>     stop after n units;  --max-seconds <n>  stop starting units after n s
 *   --metrics-port <n>     serve /metrics, /healthz, /readyz on METRICS_HOST:n (0 = off, default)
 *   --quotes <file>        instead of history: poll full quotes (five depth levels) of the file's
 *                          instruments (JSON: { "NSE_EQ": [ids], ... }) at the quote category's rate,
 *                          publish them on TOPIC_QUOTES (KAFKA_BROKERS) and store them in
 *                          market.quotes, until SIGINT/SIGTERM (or --max-seconds)
 *   --schedule             run as a service (also LOADER_SCHEDULE=on): a run at start, then one after
 *                          each trading day's close (LOADER_HOLIDAY_FILE, LOADER_RUN_DELAY_S), each
 *                          loading only what is new; stops on SIGINT/SIGTERM (exit 0)
 * Writes pause while the store's disk is below STORE_MIN_FREE_PERCENT / STORE_MIN_FREE_BYTES.
 * With INSTRUMENT_MASTER=on (the default) the instrument list (INSTRUMENT_MASTER_URL) is loaded into
 * market.instruments before the run, and in scheduled mode again every day at 07:30 IST; a failed
 * list load is logged and counted, and the history run goes on.
 * Exit codes: 0 done or bounded, 2 budget exhausted (stderr says when to go on), 1 failed.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sharedQuoteLimiter } from '@feedpipe/broker-api';
import {
  type Credentials,
  credentialsConfigFromEnv,
  FileRateSlots,
  startCredentials,
} from '@feedpipe/credentials';
import { JsonProducer } from '@feedpipe/kafka-client';
import { DiskGuard, diskGuardSettings, registerProcessMetrics } from '@feedpipe/service-kit';
import { createStore, runMigrations, type Store, storeConfigOf, storeDiskSpace } from '@feedpipe/store';
import { Registry } from 'prom-client';
import { startLoaderOps } from './cli-ops.js';
import { type HistoryLoaderEnv, historyLoaderEnv } from './env.js';
import { LoaderError } from './errors.js';
import { InstrumentMasterLoader } from './instruments/instrument-master.js';
import { instrumentMasterUrl } from './instruments/master-url.js';
import { createHistoryLoader, type LoaderLog } from './loader.js';
import { createLoaderMetrics, type LoaderMetrics } from './metrics.js';
import type { HistoryLoaderOptions } from './options.js';
import type { PlanOptions } from './plan-options.js';
import { startProgress } from './progress.js';
import { readQuoteInstruments } from './quotes/quote-instruments.js';
import { createQuotePollerMetrics } from './quotes/quote-metrics.js';
import { QuotePoller, quoteClient } from './quotes/quote-poller.js';
import { ScheduledLoader } from './scheduled-loader.js';
import { readCalendarFile, TradingCalendar } from './trading-calendar.js';

function fail(message: string): never {
  process.stderr.write(`history-loader: ${message}\n`);
  process.exit(1);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    fail(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function positive(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a non-negative number`);
  return n;
}

/** The command line and the environment, read and checked (or the process ends with the reason). */
function cliInput() {
  const { values } = parseArgs({
    options: {
      universe: { type: 'string' },
      plan: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'max-requests': { type: 'string' },
      'max-seconds': { type: 'string' },
      'metrics-port': { type: 'string' },
      schedule: { type: 'boolean', default: false },
      quotes: { type: 'string' },
    },
  });
  if (values.universe === undefined && values.quotes === undefined) fail('--universe <file> is required');
  try {
    return { values, vars: historyLoaderEnv(process.env) };
  } catch (error) {
    fail((error as Error).message);
  }
}

async function main(): Promise<void> {
  const { values, vars } = cliInput();
  // Unset, the library takes the universe file's own plan (a JSON file's `plan` object).
  const plan = values.plan === undefined ? undefined : (readJson(values.plan) as PlanOptions);
  const maxRequests = positive(values['max-requests'], 'max-requests');
  const maxSeconds = positive(values['max-seconds'], 'max-seconds');
  let tokens: Credentials;
  try {
    tokens = await startCredentials(credentialsConfigFromEnv(process.env, vars.SVC_CLIENT_ID), {
      log: (message) =>
        process.stderr.write(
          `${JSON.stringify({ time: new Date().toISOString(), event: 'credentials', message })}\n`,
        ),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const store = createStore(storeConfigOf(vars));
  if (values.quotes !== undefined) {
    await runQuotes(values.quotes, vars, tokens, store, maxSeconds);
    return;
  }
  const universe = values.universe as string;
  const options: HistoryLoaderOptions = {
    broker: { baseUrl: vars.SVC_BASE_URL, clientId: vars.SVC_CLIENT_ID },
    universe,
    ...(plan === undefined ? {} : { plan }),
    ...(maxRequests === undefined ? {} : { maxRequests }),
    ...(maxSeconds === undefined ? {} : { maxSeconds }),
  };
  const log: LoaderLog = (event, fields) => {
    if (event !== 'plan' || !process.stderr.isTTY) {
      process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
    }
  };
  const registry = new Registry();
  const metrics = createLoaderMetrics(registry);
  if (values['dry-run']) {
    const loader = createHistoryLoader(options, {
      clickhouse: store.internal,
      accessToken: tokens,
      registry,
      metrics,
      log,
    });
    process.stdout.write(`${JSON.stringify(await loader.plan(), null, 2)}\n`);
    await tokens.stop();
    await store.close();
    return;
  }
  const guard = await startDiskGuard(store, vars, metrics, log);
  const port = positive(values['metrics-port'], 'metrics-port') ?? 0;
  if (port > 0) registerProcessMetrics(registry);
  const deps = { clickhouse: store.internal, accessToken: tokens, registry, metrics, log, diskGuard: guard };
  const master =
    vars.INSTRUMENT_MASTER === 'on'
      ? new InstrumentMasterLoader(
          { url: instrumentMasterUrl(vars.INSTRUMENT_MASTER_URL, vars.SVC_BASE_URL) },
          { store: store.internal, registry, log },
        )
      : undefined;
  const close = async (): Promise<void> => {
    await master?.stop();
    guard.stop();
    await tokens.stop();
    await store.close();
  };
  if (values.schedule || vars.LOADER_SCHEDULE === 'on') {
    // The list's daily loop runs beside the schedule; it logs its own failures.
    void master?.start();
    await runScheduled(options, deps, vars, port, close);
    return;
  }
  // A failed list load is logged (instrument_master_failed) and counted; the history still loads.
  await master?.load().catch(() => undefined);
  await runOnce(createHistoryLoader(options, deps), registry, vars, port, close);
}

/** One run of the loader to its end (or a signal), with its ops endpoint and progress line. */
async function runOnce(
  loader: ReturnType<typeof createHistoryLoader>,
  registry: Registry,
  vars: HistoryLoaderEnv,
  port: number,
  close: () => Promise<void>,
): Promise<void> {
  const ops = startLoaderOps(registry, () => loader.status(), vars.METRICS_HOST, port);
  const progress = startProgress(() => loader.status(), process.stderr);
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    void loader.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const result = await loader.run();
  progress.stop();
  ops?.close();
  await close();
  if (result.state === 'budget_exhausted') {
    const at = result.resumeAt === undefined ? 'later' : new Date(result.resumeAt).toISOString();
    process.stderr.write(`history-loader: the day's Data API budget is spent; run again at ${at}\n`);
    process.exitCode = 2;
  } else if (result.state === 'failed') {
    process.stderr.write(`history-loader: failed: ${result.error ?? 'unknown error'}\n`);
    process.exitCode = 1;
  }
}

/** The disk guard of the loader's store (STORE_MIN_FREE_*), read once before anything loads. */
async function startDiskGuard(
  store: Store,
  vars: HistoryLoaderEnv,
  metrics: LoaderMetrics,
  log: LoaderLog,
): Promise<DiskGuard> {
  const guard = new DiskGuard({
    probe: storeDiskSpace(store),
    ...diskGuardSettings(vars),
    gauges: {
      freeBytes: metrics.storeFreeBytes,
      freeRatio: metrics.storeFreeRatio,
      paused: metrics.writesPaused,
    },
    log: (message) => log('disk_guard', { message }),
  });
  await guard.start();
  return guard;
}

/** `--schedule`: runs until SIGINT/SIGTERM, once at start and after each trading day's close. */
async function runScheduled(
  options: HistoryLoaderOptions,
  deps: ConstructorParameters<typeof ScheduledLoader>[1],
  vars: HistoryLoaderEnv,
  port: number,
  close: () => Promise<void>,
): Promise<void> {
  const calendar =
    vars.LOADER_HOLIDAY_FILE === undefined
      ? new TradingCalendar()
      : readCalendarFile(vars.LOADER_HOLIDAY_FILE);
  const scheduler = new ScheduledLoader(
    { loader: options, calendar, delayMs: vars.LOADER_RUN_DELAY_S * 1000 },
    deps,
  );
  const ops = startLoaderOps(scheduler.registry, () => scheduler.status(), vars.METRICS_HOST, port);
  deps.log?.('schedule', { calendar: calendar.source, delaySeconds: vars.LOADER_RUN_DELAY_S });
  const stop = (): void => {
    void scheduler.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await scheduler.start();
  ops?.close();
  await close();
}

/**
 * `--quotes <file>`: the quote poller until a signal or --max-seconds. With SVC_TOKEN_SHARE_DIR its
 * quote slots are shared with the account's other processes there (the trading gateway's quote
 * calls), beside the token lease; without it the budget is this process's alone.
 */
async function runQuotes(
  file: string,
  vars: HistoryLoaderEnv,
  tokens: Credentials,
  store: Store,
  maxSeconds: number | undefined,
): Promise<void> {
  const registry = new Registry();
  const metrics = createQuotePollerMetrics(registry);
  const producer = vars.KAFKA_BROKERS
    ? new JsonProducer({ brokers: vars.KAFKA_BROKERS.split(','), clientId: 'quote-poller' })
    : undefined;
  let poller: QuotePoller | undefined;
  const client = quoteClient(
    { baseUrl: vars.SVC_BASE_URL, clientId: vars.SVC_CLIENT_ID },
    tokens,
    sharedQuoteLimiter(
      vars.QUOTE_MARGIN_MS,
      vars.SVC_TOKEN_SHARE_DIR
        ? new FileRateSlots(vars.SVC_TOKEN_SHARE_DIR, vars.SVC_CLIENT_ID, ['quote'])
        : undefined,
    ),
    metrics,
    () => poller?.noteThrottled(),
  );
  await runMigrations(store.internal);
  poller = new QuotePoller(
    {
      instruments: readQuoteInstruments(file),
      topic: vars.TOPIC_QUOTES,
      ...(maxSeconds ? { maxSeconds } : {}),
    },
    {
      client,
      ...(producer ? { publisher: producer } : {}),
      store: store.internal,
      registry,
      metrics,
      log: (event, fields) =>
        process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`),
    },
  );
  const running = poller;
  const stop = (): void => {
    void running.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const stats = await running.run();
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), event: 'quotes_done', ...stats })}\n`,
  );
  await producer?.close();
  await tokens.stop();
  await store.close();
}

main().catch((error: unknown) => {
  const code = error instanceof LoaderError ? `${error.code}: ` : '';
  fail(`${code}${error instanceof Error ? error.message : String(error)}`);
});
