/**
 * The one error type of @feedpipe/kafka-client: a stable `code`, whether trying again can help
 * (`retriable`), and the library error underneath as `cause`. Callers test `code`, never
 * `instanceof` (two copies of the package would not share the class).
 */
export type KafkaClientErrorCode =
  /** An option is unknown or out of range (the message names it). */
  | 'CONFIG_INVALID'
  /** The client was closed. */
  | 'CLOSED'
  /** A new send while an earlier one is not acknowledged: retry that one, or reset() first. */
  | 'SEND_PENDING'
  /** The broker did not acknowledge every partition of a send in time (retriable: send it again). */
  | 'DELIVERY_TIMEOUT'
  /** The broker lost or rejected this producer's sequence state: only reset() (a new producer id) goes on. */
  | 'PRODUCER_STATE_LOST'
  /** The broker refused a batch for good (too large, corrupt, not authorised). */
  | 'PRODUCE_REJECTED'
  /** A batch handed to the producer is malformed (empty, or records outside the layout). */
  | 'BATCH_INVALID'
  /** Topics could not be created or their leaders did not appear. */
  | 'TOPIC_NOT_READY'
  /** An admin or metadata request failed. */
  | 'ADMIN_FAILED'
  /** Committing offsets failed (the records will be read again). */
  | 'COMMIT_FAILED'
  /** The consumer stopped on an error it cannot recover from by itself. */
  | 'CONSUMER_FAILED'
  /** A fetch failed (network, leader moved): retried after a backoff, the position kept. */
  | 'FETCH_FAILED'
  /** Fetched record batches are corrupt or in a format this reader does not know (CRC, magic, lengths). */
  | 'RECORDS_CORRUPT'
  /** The caller's eachBatch threw: the same records are delivered again after a backoff. */
  | 'HANDLER_FAILED'
  /** Joining the group, its heartbeat or leaving failed (retried while the consumer runs). */
  | 'GROUP_FAILED'
  /** A bounded wait ended before its condition held. */
  | 'TIMEOUT';

export class KafkaClientError extends Error {
  override readonly name = 'KafkaClientError';
  readonly code: KafkaClientErrorCode;
  readonly retriable: boolean;

  constructor(
    code: KafkaClientErrorCode,
    message: string,
    options: { retriable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** Whether `error` is a KafkaClientError (by shape, so copies of this package agree). */
export function isKafkaClientError(error: unknown): error is KafkaClientError {
  return (
    error instanceof Error &&
    error.name === 'KafkaClientError' &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { retriable?: unknown }).retriable === 'boolean'
  );
}

/** A short description of a library error chain, for messages (never includes credentials: ids and codes only). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = (error as { errors?: unknown[] }).errors;
  const first = Array.isArray(inner) && inner[0] instanceof Error ? `: ${inner[0].message}` : '';
  return `${error.message}${first}`;
}
