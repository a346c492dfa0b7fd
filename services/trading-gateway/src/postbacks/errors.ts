/**
 * Errors of the postback receiver, stream and reconciliation; `status` is what the receiver
 * answers, messages never carry the secret.
 */
import { HttpErrorWithStatuses } from '@feedpipe/service-http';

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

/** What each code answers unless the thrower says otherwise. */
const STATUS: Record<PostbackErrorCode, number> = {
  POSTBACK_CONFIG_INVALID: 500,
  POSTBACK_UNAUTHENTICATED: 401,
  POSTBACK_SOURCE_REFUSED: 403,
  POSTBACK_MALFORMED: 400,
  POSTBACK_UNSUPPORTED_MEDIA: 415,
  POSTBACK_TOO_LARGE: 413,
  POSTBACK_BUSY: 503,
  POSTBACK_WAL_FAILED: 503,
  POSTBACK_WAL_INVALID: 500,
  POSTBACK_PERSIST_FAILED: 500,
  STREAM_FULL: 503,
  STREAM_KEY_FULL: 429,
  STREAM_BAD_FILTER: 400,
  RECONCILE_FAILED: 500,
};

/**
 * On the shared HTTP error base (packages/service-http), like the gateway's own errors: one
 * envelope, status, retryable and cause for every route of the gateway, postbacks included.
 */
export class PostbackError extends HttpErrorWithStatuses<PostbackErrorCode>(STATUS) {
  override readonly name = 'PostbackError';
}

export const configError = (message: string): PostbackError =>
  new PostbackError('POSTBACK_CONFIG_INVALID', `postbacks: ${message}`);
