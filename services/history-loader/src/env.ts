/**
 * Every variable the `history-loader` CLI reads, typed with its default (docs/configuration.md,
 * history-loader); what to load comes from its flags and the universe file.
 */
import { DEFAULT_QUOTE_MARGIN_MS } from '@feedpipe/broker-api';
import { type Env, type EnvSchema, type EnvValues, readEnv } from '@feedpipe/config';
import { DEFAULT_QUOTES_TOPIC } from '@feedpipe/contracts';
import { CREDENTIALS_ENV } from '@feedpipe/credentials';
import { DISK_GUARD_ENV } from '@feedpipe/service-kit';
import { STORE_ENV } from '@feedpipe/store';
import { configError } from './errors.js';

export const HISTORY_LOADER_ENV = {
  ...CREDENTIALS_ENV,
  SVC_BASE_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    required: true,
    description: "the service's base URL (the REST API is under `/v2`)",
  },
  SVC_CLIENT_ID: { type: 'string', required: true, description: 'the account whose budget is spent' },
  ...STORE_ENV,
  METRICS_HOST: {
    type: 'string',
    default: '127.0.0.1',
    description: 'address of the ops endpoint of `--metrics-port`',
  },
  LOADER_SCHEDULE: {
    type: 'enum',
    values: ['on', 'off'],
    default: 'off',
    description: "`on` (or `--schedule`): run as a service, once at start and after each trading day's close",
  },
  LOADER_HOLIDAY_FILE: {
    type: 'string',
    unset: "the simulator's calendar: every weekday trades, close 15:30 IST",
    description: 'scheduled mode: exchange holidays and closing times (JSON)',
  },
  LOADER_RUN_DELAY_S: {
    type: 'integer',
    min: 0,
    max: 86_400,
    default: 900,
    description: 'scheduled mode: seconds after the last close of the loaded segments a run starts',
  },
  INSTRUMENT_MASTER: {
    type: 'enum',
    values: ['on', 'off'],
    default: 'on',
    description:
      '`on`: load the instrument list into market.instruments before a run (and daily at 07:30 IST in scheduled mode)',
  },
  INSTRUMENT_MASTER_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: "`$SVC_BASE_URL/api-data/api-scrip-master-detailed.csv`, the simulator's address of the list",
    description: "address of the service's published instrument list (the detailed CSV)",
  },
  KAFKA_BROKERS: {
    type: 'string',
    unset: '`--quotes` stores quotes in ClickHouse only',
    description: '`--quotes`: Kafka bootstrap brokers (`host:port,...`) the quotes are published to',
  },
  TOPIC_QUOTES: {
    type: 'string',
    default: DEFAULT_QUOTES_TOPIC,
    description: '`--quotes`: the topic of the quotes',
  },
  QUOTE_MARGIN_MS: {
    type: 'integer',
    min: 0,
    max: 1_000,
    default: DEFAULT_QUOTE_MARGIN_MS,
    description:
      "`--quotes`: the quote category's window counts from each send plus this margin (arrival jitter of the link to the service)",
  },
  ...DISK_GUARD_ENV,
} as const satisfies EnvSchema;

export type HistoryLoaderEnv = EnvValues<typeof HISTORY_LOADER_ENV>;

/** Reads and checks the environment; CONFIG_INVALID names every bad variable (never a secret). */
export function historyLoaderEnv(env: Env): HistoryLoaderEnv {
  const { values, problems } = readEnv(HISTORY_LOADER_ENV, env);
  if (problems.length > 0) throw configError(problems.join('; '));
  return values;
}
