/**
 * The gateway's environment, read and checked once (for `trading-gateway run` and its key
 * commands): each mistake is a CONFIG_INVALID naming the variable, and no message carries a secret.
 * Every variable is in `GATEWAY_ENV` below, with its default and meaning.
 */

import { join } from 'node:path';
import { type EnvSchema, readEnv } from '@feedpipe/config';
import { CREDENTIALS_ENV, type CredentialsConfig, credentialsConfigFromEnv } from '@feedpipe/credentials';
import { HTTP_SERVER_ENV, httpServerConfigFromEnv } from '@feedpipe/service-kit';
import { STORE_ENV, type StoreConfig, storeConfigOf, storeUrlSecrets } from '@feedpipe/store';
import type { LogLevel } from './config.js';
import { TradingGatewayError } from './errors.js';
import { parseIstClock } from './fills/account-snapshots.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface GatewayEnv {
  host: string;
  port: number;
  logLevel: LogLevel;
  store: StoreConfig;
  kafkaBrokers: string[];
  /** The service's REST API and credentials, when order routes are on. */
  /** `accessToken`: the configured one, if any; the token in use comes from `credentials`. */
  broker?: { baseUrl: string; clientId: string; accessToken?: string; authUrl?: string };
  /** Where the trading account's token comes from and how it is renewed (with `broker`). */
  credentials?: CredentialsConfig;
  postbacks?: { secret: string; walDir: string; allowlist?: string[] };
  /** The order audit journal (the gateway config's `auditJournal`). */
  auditJournal: { dir: string; maxRows: number };
  /** Order-update streams one key may hold at once (the receiver's `maxStreamClientsPerKey`). */
  streamsPerKey: number;
  /** Fills and end-of-day snapshots (the gateway config's `fills`). */
  fills: { syncIntervalMs: number; historyDays: number; snapshotAtIst: string };
  bootstrapKeyName?: string;
  /** The server's connection limits (HTTP_* variables, shared with the query API). */
  server: ReturnType<typeof httpServerConfigFromEnv>;
  /** Everything secret the environment holds: scrubbed from anything printed or logged. */
  secrets: string[];
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug'];

/** Every variable the gateway reads (docs/configuration.md, trading-gateway). */
export const GATEWAY_ENV = {
  ...CREDENTIALS_ENV,
  ...HTTP_SERVER_ENV,
  TRADING_GATEWAY_PORT: {
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 8090,
    description: 'listen port (0 = any free port)',
  },
  TRADING_GATEWAY_HOST: { type: 'string', default: '127.0.0.1', description: 'listen address' },
  CLICKHOUSE_URL: {
    ...STORE_ENV.CLICKHOUSE_URL,
    description: 'ClickHouse server (the audit trail, order events, keys)',
  },
  DATA_DIR: {
    ...STORE_ENV.DATA_DIR,
    description:
      'chDB in `$DATA_DIR/chdb`; the postback write-ahead log in `$DATA_DIR/postback-wal`; the order audit journal in `$DATA_DIR/audit-journal`',
  },
  KAFKA_BROKERS: {
    type: 'list',
    unset: 'no postback receiver',
    description: 'Kafka brokers of `orders.updates`',
  },
  SVC_BASE_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: 'order and account routes answer 503 `TRADING_DISABLED`',
    description: "the service's base URL",
  },
  SVC_CLIENT_ID: {
    type: 'string',
    unset: 'required with `SVC_BASE_URL`',
    description: 'the trading account',
  },
  SVC_AUTH_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: "the client's default",
    description: "the service's auth URL",
  },
  POSTBACK_SECRET: {
    type: 'string',
    unset: 'no postback receiver',
    secret: true,
    description: 'receive order updates at `/postbacks/orders/<secret>` (needs `KAFKA_BROKERS`)',
  },
  POSTBACK_ALLOWLIST: {
    type: 'list',
    unset: 'any source',
    description: 'comma-separated IPs or CIDRs allowed to post postbacks',
  },
  TRADING_GATEWAY_STREAMS_PER_KEY: {
    type: 'integer',
    min: 1,
    max: 100,
    default: 10,
    description:
      'order-update streams (`/order-updates/stream`) one key may hold at once, of the 100 the gateway serves; past it 429 `STREAM_KEY_FULL`',
  },
  TRADING_GATEWAY_AUDIT_JOURNAL_MAX_ROWS: {
    type: 'integer',
    min: 100,
    max: 10_000_000,
    default: 100_000,
    description:
      'order audit rows the journal (`$DATA_DIR/audit-journal`) may hold before they reach the store; past it new orders get 503 `AUDIT_BACKLOG_FULL`',
  },
  TRADING_GATEWAY_FILL_SYNC_INTERVAL_MS: {
    type: 'integer',
    min: 0,
    max: 86_400_000,
    default: 60_000,
    description:
      "how often the day's trade book is read into `market.fills` besides the reads a postback's fill triggers (0: only at start and on postbacks)",
  },
  TRADING_GATEWAY_FILL_HISTORY_DAYS: {
    type: 'integer',
    min: 0,
    max: 366,
    default: 7,
    description:
      'at start, days of trade history read into `market.fills` for days without a stored fill (a gateway down over a close)',
  },
  TRADING_GATEWAY_SNAPSHOT_AT: {
    type: 'string',
    default: '23:55',
    description:
      'IST time (`HH:MM`) of the daily end-of-day snapshot of positions, holdings, funds and the ledger into `market.account_snapshots`; `off` for none',
  },
  TRADING_GATEWAY_BOOTSTRAP_KEY_NAME: {
    type: 'string',
    unset: 'no key created',
    description: 'at start, create a `trade` key under this name and print it once',
  },
  TRADING_GATEWAY_URL: {
    type: 'string',
    unset:
      'key commands open the store here; while it is held (embedded chDB of a running gateway) they use the gateway at TRADING_GATEWAY_HOST:TRADING_GATEWAY_PORT',
    description:
      'key commands (`create-key`, `list-keys`, `revoke-key`): the running gateway to manage the keys of (as `--url`)',
  },
  TRADING_GATEWAY_ADMIN_KEY: {
    type: 'string',
    unset: 'key commands work on the local store only',
    description:
      'key commands against a running gateway: a gateway key with the `admin` scope (never printed or logged)',
  },
  LOG_LEVEL: { type: 'enum', values: LEVELS, default: 'info', description: 'log level' },
} as const satisfies EnvSchema;

function fail(message: string): never {
  throw new TradingGatewayError('CONFIG_INVALID', message);
}

type GatewayValues = ReturnType<typeof readEnv<typeof GATEWAY_ENV>>['values'];

function brokerOf(
  v: GatewayValues,
  env: Env,
): { broker: GatewayEnv['broker']; credentials?: CredentialsConfig } {
  const baseUrl = v.SVC_BASE_URL;
  if (!baseUrl) return { broker: undefined };
  const clientId = v.SVC_CLIENT_ID;
  if (!clientId)
    fail('SVC_BASE_URL needs SVC_CLIENT_ID and a token source (SVC_TOKEN_SOURCE and its variables)');
  let credentials: CredentialsConfig;
  try {
    credentials = credentialsConfigFromEnv(env, clientId);
  } catch (error) {
    fail((error as Error).message);
  }
  const authUrl = v.SVC_AUTH_URL;
  const accessToken = credentials.accessToken;
  return {
    broker: { baseUrl, clientId, ...(accessToken ? { accessToken } : {}), ...(authUrl ? { authUrl } : {}) },
    credentials,
  };
}

export function gatewayEnv(env: Env): GatewayEnv {
  const { values: v, problems } = readEnv(GATEWAY_ENV, env, { ownPrefixes: ['TRADING_GATEWAY_'] });
  if (problems.length > 0) fail(problems.join('; '));
  const dataDir = v.DATA_DIR;
  const url = v.CLICKHOUSE_URL;
  const kafkaBrokers = v.KAFKA_BROKERS ?? [];
  const { broker, credentials } = brokerOf(v, env);
  const secret = v.POSTBACK_SECRET;
  if (secret && kafkaBrokers.length === 0)
    fail('POSTBACK_SECRET needs KAFKA_BROKERS (order updates go to Kafka)');
  const allowlist = v.POSTBACK_ALLOWLIST ?? [];
  const bootstrapKeyName = v.TRADING_GATEWAY_BOOTSTRAP_KEY_NAME;
  if (v.TRADING_GATEWAY_SNAPSHOT_AT !== 'off')
    parseIstClock(v.TRADING_GATEWAY_SNAPSHOT_AT, 'TRADING_GATEWAY_SNAPSHOT_AT');
  return {
    host: v.TRADING_GATEWAY_HOST,
    port: v.TRADING_GATEWAY_PORT,
    logLevel: v.LOG_LEVEL as LogLevel,
    store: storeConfigOf(v),
    kafkaBrokers,
    ...(broker ? { broker } : {}),
    ...(credentials ? { credentials } : {}),
    ...(secret
      ? {
          postbacks: {
            secret,
            // Acknowledged postbacks wait here until stored; replayed on the next start.
            walDir: join(dataDir, 'postback-wal'),
            ...(allowlist.length > 0 ? { allowlist } : {}),
          },
        }
      : {}),
    ...(bootstrapKeyName ? { bootstrapKeyName } : {}),
    streamsPerKey: v.TRADING_GATEWAY_STREAMS_PER_KEY,
    // Audit rows wait here until stored; written on the next start after a crash.
    auditJournal: { dir: join(dataDir, 'audit-journal'), maxRows: v.TRADING_GATEWAY_AUDIT_JOURNAL_MAX_ROWS },
    fills: {
      syncIntervalMs: v.TRADING_GATEWAY_FILL_SYNC_INTERVAL_MS,
      historyDays: v.TRADING_GATEWAY_FILL_HISTORY_DAYS,
      snapshotAtIst: v.TRADING_GATEWAY_SNAPSHOT_AT,
    },
    server: httpServerConfigFromEnv(v),
    secrets: [
      ...storeUrlSecrets(url),
      ...[credentials?.accessToken, credentials?.pin, credentials?.totpSecret].filter(
        (x): x is string => !!x,
      ),
      ...(secret ? [secret] : []),
    ],
  };
}
