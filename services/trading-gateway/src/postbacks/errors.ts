/**
 * Errors of the postback receiver, stream and reconciliation. Kept inside this folder so the
 * plugin stands alone; `status` is what the receiver answers, messages never carry the secret.
 */
export type PostbackErrorCode =
  /** Options refused at construction (names the option). */
  | 'POSTBACK_CONFIG_INVALID'
  /** No secret, or a wrong one (401). */
  | 'POSTBACK_UNAUTHENTICATED'
  /** The source address is not on the allowlist (403). */
  | 'POSTBACK_SOURCE_REFUSED'
  /** The body is not JSON, nests too deep, or is not an order update (400). */
  | 'POSTBACK_MALFORMED'
  /** Not sent as application/json (415). */
  | 'POSTBACK_UNSUPPORTED_MEDIA'
  /** The body is larger than the limit (413). */
  | 'POSTBACK_TOO_LARGE'
  /** The write-ahead log is full (entries or bytes); the sender should retry (503). */
  | 'POSTBACK_BUSY'
  /** The write-ahead log could not be written or synced; nothing was acknowledged (503). */
  | 'POSTBACK_WAL_FAILED'
  /** The write-ahead log directory holds something this version cannot read (start refused). */
  | 'POSTBACK_WAL_INVALID'
  /** Kafka or ClickHouse refused a batch (kept and retried). */
  | 'POSTBACK_PERSIST_FAILED'
  /** The stream has as many clients as it allows (503). */
  | 'STREAM_FULL'
  /** The key already holds as many streams as one key may (429): its share, so others keep theirs. */
  | 'STREAM_KEY_FULL'
  /** A stream or history filter is invalid (400). */
  | 'STREAM_BAD_FILTER'
  /** Reconciliation could not read the order book or the table. */
  | 'RECONCILE_FAILED';

export class PostbackError extends Error {
  override readonly name = 'PostbackError';
  readonly code: PostbackErrorCode;
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    code: PostbackErrorCode,
    message: string,
    init: { status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status ?? 500;
    this.retryable = init.retryable ?? false;
  }
}

export const configError = (message: string): PostbackError =>
  new PostbackError('POSTBACK_CONFIG_INVALID', `postbacks: ${message}`);
