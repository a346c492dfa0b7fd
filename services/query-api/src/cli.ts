/**
 * query-api CLI.
 *   query-api serve                      run the API (env below)
 *   query-api create-key NAME SCOPES     create a key (SCOPES: read,admin) and print it once
 *   query-api list-keys | revoke-key ID  [--url URL]: while a running API on embedded chDB holds the
 *                                        store (npm start), through its admin routes, with an admin
 *                                        key in QUERY_API_ADMIN_KEY (URL: --url, QUERY_API_URL, or
 *                                        QUERY_API_HOST:QUERY_API_PORT)
 * Environment: QUERY_API_PORT (default 8080), QUERY_API_HOST (default 127.0.0.1),
 * QUERY_API_CLICKHOUSE_PORT (unset: none; ClickHouse's HTTP protocol at the root of that port), CLICKHOUSE_URL
 * (unset: embedded chDB in DATA_DIR/chdb, DATA_DIR default .data), CLICKHOUSE_SQL_USER +
 * CLICKHOUSE_SQL_PASSWORD or CLICKHOUSE_SQL_PASSWORD_FILE (server only: the user callers' queries
 * run as; unset: the CLICKHOUSE_URL user; see packages/store's env/store-env.ts), KAFKA_BROKERS (comma-separated;
 * unset: no live stream), TOPIC_TRADES / TOPIC_OHLC / TOPIC_REFERENCE / TOPIC_STATUS (the feed's
 * topics the live stream reads, as the ingestor and sink name them; defaults from @feedpipe/contracts),
 * QUERY_API_INSTRUMENTS_FILE (symbols for the instrument search; see
 * config/instrument-list.ts), QUERY_API_BOOTSTRAP_KEY_NAME (serve: create a read key at start and
 * print it once). No trading credentials: orders and postbacks are the trading gateway's
 * (services/trading-gateway, `trading-gateway run`).
 * QUERY_API_WORKERS (default 1; more: that many API processes share the port with SO_REUSEPORT,
 * each with its own hot tier; needs CLICKHOUSE_URL; workers/serve-workers.ts), LOG_LEVEL (default info; requests are logged by route pattern, never with query string, headers or
 * secrets).
 */
import { feedTopicsOf } from '@feedpipe/contracts';
import { KEY_COMMANDS, openLocalKeyStore, redactLogText, runKeyCommand } from '@feedpipe/service-http';
import { httpServerConfigFromEnv } from '@feedpipe/service-kit';
import { createStore, runMigrations, storeConfigFromEnv } from '@feedpipe/store';
import { createQueryApi } from './app.js';
import { API_KEYS_TABLE, SCOPES, type Scope } from './auth/scopes.js';
import { jdbcUrlOf } from './clickhouse-http/jdbc-url.js';
import type { LogLevel } from './config/config.js';
import { type QueryApiEnv, queryApiEnv } from './config/env.js';
import { readInstrumentList } from './config/instrument-list.js';
import { reportListening, serveWorkers, WORKER_ARG } from './workers/serve-workers.js';

/** The store's passwords, once read (a password file is read only then). */
const storeSecrets: string[] = [];

/** Secrets from the environment, scrubbed from anything this CLI prints about a failure. */
function knownSecrets(): string[] {
  return [...storeSecrets];
}

function fail(message: string): never {
  process.stderr.write(`query-api: ${redactLogText(message, knownSecrets())}\n`);
  process.exit(2);
}

/** `--url URL` among the arguments, removed from them. */
function takeUrl(args: string[]): string | undefined {
  const at = args.indexOf('--url');
  if (at === -1) return undefined;
  const url = args[at + 1] ?? fail('--url needs a URL, e.g. --url http://127.0.0.1:8080');
  args.splice(at, 2);
  return url;
}

/** create-key, list-keys, revoke-key: on the store here, or through a running API's admin routes. */
async function keyCommand(command: string, args: string[], vars: QueryApiEnv): Promise<never> {
  const url = takeUrl(args) ?? vars.QUERY_API_URL;
  const adminKey = vars.QUERY_API_ADMIN_KEY;
  if (adminKey) storeSecrets.push(adminKey);
  const code = await runKeyCommand<Scope>(command, args, {
    program: 'query-api',
    scopes: SCOPES,
    url,
    defaultUrl: `http://${vars.QUERY_API_HOST === '0.0.0.0' ? '127.0.0.1' : vars.QUERY_API_HOST}:${vars.QUERY_API_PORT}`,
    adminKey,
    adminKeyVariable: 'QUERY_API_ADMIN_KEY',
    openLocal: () => {
      const storeEnv = storeConfigFromEnv(process.env);
      storeSecrets.push(...storeEnv.secrets);
      return openLocalKeyStore(storeEnv.config, API_KEYS_TABLE, SCOPES);
    },
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`query-api: ${redactLogText(line, knownSecrets())}\n`),
  });
  process.exit(code);
}

async function main(): Promise<void> {
  const [command = 'serve', ...args] = process.argv.slice(2);
  let vars: QueryApiEnv;
  try {
    vars = queryApiEnv(process.env);
  } catch (error) {
    fail((error as Error).message);
  }
  if ((KEY_COMMANDS as readonly string[]).includes(command)) await keyCommand(command, args, vars);
  const isWorker = args.includes(WORKER_ARG);
  if (command === 'serve' && vars.QUERY_API_WORKERS > 1 && !isWorker) {
    // Embedded chDB's data directory belongs to one process; workers share a ClickHouse server.
    if (!process.env.CLICKHOUSE_URL)
      fail('QUERY_API_WORKERS > 1 needs CLICKHOUSE_URL (embedded chDB serves one process)');
    process.exitCode = await serveWorkers({
      workers: vars.QUERY_API_WORKERS,
      script: process.argv[1] as string,
      execArgv: process.execArgv,
      env: process.env,
      log: (line) => process.stderr.write(`query-api: ${line}\n`),
    });
    return;
  }
  const storeEnv = storeConfigFromEnv(process.env);
  storeSecrets.push(...storeEnv.secrets);
  const store = createStore(storeEnv.config);
  await runMigrations(store.internal);
  if (command !== 'serve') fail(`unknown command "${command}" (serve, create-key, list-keys, revoke-key)`);
  let instruments: ReturnType<typeof readInstrumentList> = [];
  try {
    if (vars.QUERY_API_INSTRUMENTS_FILE) instruments = readInstrumentList(vars.QUERY_API_INSTRUMENTS_FILE);
  } catch (error) {
    fail((error as Error).message);
  }
  if (storeEnv.sharedLogin) {
    process.stderr.write(
      "query-api: CLICKHOUSE_SQL_USER is unset: callers' queries run as the CLICKHOUSE_URL user; set the read-only user in production (docs/operations.md)\n",
    );
  }
  const api = await createQueryApi(
    {
      host: vars.QUERY_API_HOST,
      port: vars.QUERY_API_PORT,
      logLevel: vars.LOG_LEVEL as LogLevel,
      server: httpServerConfigFromEnv(vars),
      reusePort: isWorker,
      hotTier: {
        windowHours: vars.QUERY_API_HOT_TIER_HOURS,
        maxInstruments: vars.QUERY_API_HOT_TIER_MAX_INSTRUMENTS,
        maxTradesPerDay: vars.QUERY_API_HOT_TIER_MAX_TRADES_PER_DAY,
        maxBytes: vars.QUERY_API_HOT_TIER_MAX_BYTES,
        maxRowTextBytes: vars.QUERY_API_HOT_TIER_MAX_ROW_TEXT_BYTES,
      },
      topics: feedTopicsOf(vars),
      ...(vars.QUERY_API_CLICKHOUSE_PORT === undefined
        ? {}
        : { clickhousePort: vars.QUERY_API_CLICKHOUSE_PORT }),
    },
    {
      store,
      kafkaBrokers: vars.KAFKA_BROKERS ?? [],
      instruments,
      processMetrics: true,
      logSecrets: knownSecrets(),
    },
  );
  const bootstrap = vars.QUERY_API_BOOTSTRAP_KEY_NAME;
  if (bootstrap) {
    const created = await api.keys.create(bootstrap, ['read']);
    process.stdout.write(`query-api key (read), shown once: ${created.key}\n`);
  }
  const url = await api.start();
  if (isWorker) reportListening(url);
  process.stderr.write(`query-api listening on ${url} (docs at ${url}/docs)\n`);
  if (api.clickhouseUrl) {
    process.stderr.write(
      `query-api: ClickHouse protocol at ${api.clickhouseUrl}/ (JDBC: ${jdbcUrlOf(api.clickhouseUrl)})\n`,
    );
  }
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await api.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`query-api: ${redactLogText(message, knownSecrets())}\n`);
  process.exit(1);
});
