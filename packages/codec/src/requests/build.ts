import { CodecError } from '../errors.js';
import {
  type InstrumentRef,
  isSubscriptionRequestCode,
  MAX_INSTRUMENTS_PER_REQUEST,
  MAX_SUBSCRIPTIONS_PER_CONNECTION,
  RequestCode,
  type SubscriptionRequestCode,
  securityIdProblem,
} from './constants.js';

/**
 * JSON request texts of at most 100 instruments each, in the given order. Throws
 * CodecError('TOO_MANY_SUBSCRIPTIONS') above 5000 instruments (the per-connection limit) and
 * CodecError('INVALID_REQUEST') for a bad code, segment or security id. An empty list gives no request.
 */
export function buildSubscriptionRequests(
  code: SubscriptionRequestCode,
  instruments: readonly InstrumentRef[],
): string[] {
  if (!isSubscriptionRequestCode(code)) {
    throw new CodecError('INVALID_REQUEST', `requestCode must be 15, 16, 17 or 18, got ${String(code)}`);
  }
  if (instruments.length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    throw new CodecError(
      'TOO_MANY_SUBSCRIPTIONS',
      `${instruments.length} instruments exceed the limit of ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`,
    );
  }
  const requests: string[] = [];
  for (let start = 0; start < instruments.length; start += MAX_INSTRUMENTS_PER_REQUEST) {
    const chunk = instruments.slice(start, start + MAX_INSTRUMENTS_PER_REQUEST);
    const instrumentList = chunk.map((instrument, i) => checkedInstrument(instrument, start + i));
    requests.push(
      JSON.stringify({ requestCode: code, instrumentCount: instrumentList.length, instrumentList }),
    );
  }
  return requests;
}

export function buildDisconnectRequest(): string {
  return JSON.stringify({ requestCode: RequestCode.Disconnect });
}

/** A fresh object with exactly the two wire keys, so stray properties never reach the server. */
function checkedInstrument(instrument: InstrumentRef, index: number): InstrumentRef {
  if (instrument === null || typeof instrument !== 'object') {
    throw new CodecError('INVALID_REQUEST', `instrument ${index} must be an object`);
  }
  if (instrument.exchangeSegment !== 'INX_EQ') {
    throw new CodecError(
      'INVALID_REQUEST',
      `instrument ${index}: exchangeSegment must be "INX_EQ", got ${JSON.stringify(instrument.exchangeSegment)}`,
    );
  }
  const problem = securityIdProblem(instrument.securityId);
  if (problem !== undefined) {
    throw new CodecError('INVALID_REQUEST', `instrument ${index}: securityId ${problem}`);
  }
  return { exchangeSegment: 'INX_EQ', securityId: instrument.securityId };
}
