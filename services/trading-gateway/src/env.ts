/**
 * The gateway's environment, read and checked once (for `trading-gateway run` and its key
 * commands): each mistake is a CONFIG_INVALID naming the variable, and no message carries a secret.
 *
 *   TRADING_GATEWAY_HOST / _PORT   listen address (default 127.0.0.1:8090)
 *   DATA_DIR                       embedded chDB (DATA_DIR/chdb) and the postback write-ahead log
 *                                  (DATA_DIR/postback-wal); default .data
 *   CLICKHOUSE_URL                 a ClickHouse server; unset: embedded chDB
 *   KAFKA_BROKERS                  comma-separated; the postback receiver needs them
 *   SVC_BASE_URL, SVC_CLIENT_ID,   the service's REST API and the credentials orders are placed
 *   SVC_ACCESS_TOKEN, SVC_AUTH_URL with (unset SVC_BASE_URL: order routes answer 503)
 *   POSTBACK_SECRET                set: receive postbacks at /postbacks/orders/<secret>
 *   POSTBACK_ALLOWLIST             comma-separated IPs/CIDRs allowed to post; default any
 *   TRADING_GATEWAY_BOOTSTRAP_KEY_NAME  run: create a trade key at start and print it once
 *   LOG_LEVEL                      default info
 */
import { join } from 'node:path';
import type { StoreConfig } from '@feedpipe/store';
import type { LogLevel } from './config.js';
import { TradingGatewayError } from './errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface GatewayEnv {
  host: string;
  port: number;
  logLevel: LogLevel;
  store: StoreConfig;
  kafkaBrokers: string[];
  /** The service's REST API and credentials, when order routes are on. */
  broker?: { baseUrl: string; clientId: string; accessToken: string; authUrl?: string };
  postbacks?: { secret: string; walDir: string; allowlist?: string[] };
  bootstrapKeyName?: string;
  /** Everything secret the environment holds: scrubbed from anything printed or logged. */
  secrets: string[];
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug'];

function fail(message: string): never {
  throw new TradingGatewayError('CONFIG_INVALID', message);
}

/** Unset, empty and blank are all "not given". */
function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** The password in CLICKHOUSE_URL, if any (the store validates the URL itself). */
function urlPassword(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [password];
  } catch {
    return [];
  }
}

function brokerOf(env: Env): GatewayEnv['broker'] {
  const baseUrl = given(env, 'SVC_BASE_URL');
  if (!baseUrl) return undefined;
  const clientId = given(env, 'SVC_CLIENT_ID');
  const accessToken = given(env, 'SVC_ACCESS_TOKEN');
  if (!clientId || !accessToken) fail('SVC_BASE_URL needs SVC_CLIENT_ID and SVC_ACCESS_TOKEN');
  const authUrl = given(env, 'SVC_AUTH_URL');
  return { baseUrl, clientId, accessToken, ...(authUrl ? { authUrl } : {}) };
}

export function gatewayEnv(env: Env): GatewayEnv {
  const rawPort = given(env, 'TRADING_GATEWAY_PORT') ?? '8090';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    fail(`TRADING_GATEWAY_PORT must be a port number, got "${rawPort}"`);
  }
  const logLevel = (given(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LEVELS.includes(logLevel)) fail(`LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  const dataDir = given(env, 'DATA_DIR') ?? '.data';
  const url = given(env, 'CLICKHOUSE_URL');
  const kafkaBrokers = list(given(env, 'KAFKA_BROKERS'));
  const broker = brokerOf(env);
  const secret = given(env, 'POSTBACK_SECRET');
  if (secret && kafkaBrokers.length === 0)
    fail('POSTBACK_SECRET needs KAFKA_BROKERS (order updates go to Kafka)');
  const allowlist = list(given(env, 'POSTBACK_ALLOWLIST'));
  const bootstrapKeyName = given(env, 'TRADING_GATEWAY_BOOTSTRAP_KEY_NAME');
  return {
    host: given(env, 'TRADING_GATEWAY_HOST') ?? '127.0.0.1',
    port,
    logLevel,
    store: { url, dataDir: join(dataDir, 'chdb') },
    kafkaBrokers,
    ...(broker ? { broker } : {}),
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
    secrets: [...urlPassword(url), ...(broker ? [broker.accessToken] : []), ...(secret ? [secret] : [])],
  };
}
