/**
 * Options shared by the clients: every client reads its options once, at construction, through
 * the declarative reader of @feedpipe/config against a schema declared beside the client, which
 * holds each key's range and default; unknown keys are refused with the allowed list, bad values
 * with what is allowed (CONFIG_INVALID). A client works on the resolved options the reader
 * returns, so a default is written once, in its schema.
 */
import { type OptionsSchema, type OptionValues, readOptions } from '@feedpipe/config';
import { KafkaClientError } from './errors.js';

/** Options every client takes. */
export interface ConnectionOptions {
  /** Bootstrap brokers, `host:port` (at least one). */
  brokers: readonly string[];
  /** Client id sent to the broker. Default `feedpipe`. */
  clientId?: string;
  /** Request timeout in ms. Default 30,000. */
  requestTimeoutMs?: number;
}

/** A duration in ms: up to the longest delay a Node timer keeps (a longer one fires at once). */
export const DURATION_MS = { kind: 'integer', min: 1, max: 2_147_483_647 } as const;
/** A size in bytes. */
export const SIZE_BYTES = { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER } as const;

/** The keys of ConnectionOptions, for a client's schema to spread. */
export const CONNECTION_OPTIONS = {
  brokers: { kind: 'list', minLength: 1, required: true },
  clientId: { kind: 'string', default: 'feedpipe' },
  requestTimeoutMs: { ...DURATION_MS, default: 30_000 },
} as const satisfies OptionsSchema;

const BROKER = /^[^:\s]+:\d+$/;

/** The keys the fetching clients (topic tail, batch consumer) share. */
export const FETCH_OPTIONS = {
  ...CONNECTION_OPTIONS,
  topics: { kind: 'list', minLength: 1, required: true },
  eachBatch: { kind: 'given', required: true },
  maxBytes: { ...SIZE_BYTES, default: 4 * 1024 * 1024 },
  maxBytesPerPartition: { ...SIZE_BYTES, default: 1024 * 1024 },
  maxWaitMs: DURATION_MS,
  checkCrcs: { kind: 'boolean', default: true },
  retryBackoffMs: { ...DURATION_MS, default: 100 },
  maxRetryBackoffMs: { ...DURATION_MS, default: 5_000 },
  startTimeoutMs: DURATION_MS,
  onError: { kind: 'given' },
} as const satisfies OptionsSchema;

/** `host:port` (checked by readClientOptions) as the library's Broker. */
export function brokerOf(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

function invalid(message: string): KafkaClientError {
  return new KafkaClientError('CONFIG_INVALID', message);
}

/** A client's options as given, with every default of its schema filled in. */
export type Resolved<O extends object, S extends OptionsSchema> = O & OptionValues<S>;

/**
 * Reads a client's options against its schema (`what` names the client in the messages), then
 * what a schema kind cannot say: each broker is `host:port`, each topic a non-empty string, each
 * of `functions` a function. Returns the options with the defaults filled in, typed as given (a
 * callback keeps its signature) and as the schema resolves them (a defaulted key is present).
 */
export function readClientOptions<S extends OptionsSchema, O extends object>(
  what: string,
  schema: S,
  options: O,
  functions: readonly (keyof S & string)[] = [],
): Resolved<O, S> {
  const where = `${what} options`;
  const values = readOptions(schema, options, { where, fail: invalid });
  const entries = values as Record<string, unknown>;
  const problems: string[] = [];
  const brokers = entries.brokers as readonly unknown[] | undefined;
  if (brokers?.some((b) => typeof b !== 'string' || !BROKER.test(b)))
    problems.push('"brokers" must list host:port entries');
  const topics = entries.topics as readonly unknown[] | undefined;
  if (topics?.some((t) => typeof t !== 'string' || t === ''))
    problems.push('"topics" must list non-empty topic names');
  for (const key of functions)
    if (entries[key] !== undefined && typeof entries[key] !== 'function')
      problems.push(`"${key}" must be a function`);
  if (problems.length > 0) throw invalid(`${where}: ${problems.join('; ')}`);
  // Every key given is one of the schema's (unknown keys were refused), so the values hold them all.
  return values as Resolved<O, S>;
}
