import { CodedError } from '@feedpipe/errors';
export type ServiceKitErrorCode =
  /** An option with a bad value, named in the message. */
  'CONFIG_INVALID';

/** The one error type of service-kit's own parts; `retryable` says whether trying again can help. */
export class ServiceKitError extends CodedError<ServiceKitErrorCode> {
  override readonly name = 'ServiceKitError';
}
