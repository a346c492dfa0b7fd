import { CodedError, type CodedErrorOptions } from '@feedpipe/errors';

/**
 * The one error class of the package. `code` is stable for programs; the message is for an operator
 * and names the variable or file at fault, never a token, PIN or TOTP secret.
 */
export type CredentialsErrorCode =
  /** A variable is missing, malformed or contradicts another; nothing was started. */
  | 'CONFIG_INVALID'
  /** A secret's `*_FILE` or the token file cannot be read or is empty. */
  | 'SECRET_UNREADABLE'
  /** Obtaining a token failed (network, refusal); the current token, if still valid, stays in use. */
  | 'RENEWAL_FAILED'
  /** The shared directory cannot be used (permissions, a full disk). */
  | 'SHARE_FAILED'
  /** No token within the time allowed (e.g. the renewal owner published none). */
  | 'TIMEOUT';

export class CredentialsError extends CodedError<CredentialsErrorCode> {
  override readonly name = 'CredentialsError';

  /** A failed renewal and a timeout are retryable unless said otherwise: a later attempt may get a token. */
  constructor(code: CredentialsErrorCode, message: string, options: CodedErrorOptions = {}) {
    super(code, message, {
      ...options,
      retryable: options.retryable ?? (code === 'RENEWAL_FAILED' || code === 'TIMEOUT'),
    });
  }
}

export function isCredentialsError(value: unknown): value is CredentialsError {
  return value instanceof Error && value.name === 'CredentialsError' && 'code' in value;
}
