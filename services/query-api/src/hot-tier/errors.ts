/** The hot tier's typed errors, with stable codes (a failed tier never fails a request: it steps aside). */
import { CodedError } from '@feedpipe/errors';
export type HotTierErrorCode = 'LOAD_FAILED' | 'FEED_FAILED' | 'CONFIG_INVALID';

export class HotTierError extends CodedError<HotTierErrorCode> {
  override readonly name = 'HotTierError';
}
