import { CodecError } from '../errors.js';
import {
  type ClientRequest,
  type InstrumentRef,
  isSubscriptionRequestCode,
  MAX_INSTRUMENTS_PER_REQUEST,
  RequestCode,
  securityIdProblem,
} from './constants.js';

/** Requests are small; a text beyond this is refused before JSON.parse spends time on it. */
export const MAX_REQUEST_TEXT_LENGTH = 64 * 1024;

/**
 * Server side: parses and validates one request text. Throws CodecError('INVALID_REQUEST') whose
 * message says what is wrong: bad JSON, unknown code, unknown keys, count mismatch, more than 100
 * instruments, a bad segment or security id. Returns a fresh object holding only the wire keys.
 */
export function parseClientRequest(text: string): ClientRequest {
  if (typeof text !== 'string') invalid(`request must be text, got ${typeof text}`);
  if (text.length > MAX_REQUEST_TEXT_LENGTH)
    invalid(`request longer than ${MAX_REQUEST_TEXT_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new CodecError('INVALID_REQUEST', `request is not valid JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    invalid('request must be a JSON object');
  const body = parsed as Record<string, unknown>;
  const code = body.requestCode;
  if (code === RequestCode.Disconnect) {
    rejectUnknownKeys(body, ['requestCode']);
    return { requestCode: RequestCode.Disconnect };
  }
  if (!isSubscriptionRequestCode(code)) {
    invalid(`unknown requestCode ${preview(code)} (expected 12, 15, 16, 17 or 18)`);
  }
  rejectUnknownKeys(body, ['requestCode', 'instrumentCount', 'instrumentList']);
  const { instrumentCount, instrumentList } = body;
  if (!Array.isArray(instrumentList)) invalid('instrumentList must be an array');
  if (!Number.isInteger(instrumentCount)) invalid('instrumentCount must be an integer');
  if (instrumentCount !== instrumentList.length) {
    invalid(
      `instrumentCount ${String(instrumentCount)} does not match the ${instrumentList.length} entries of instrumentList`,
    );
  }
  if (instrumentList.length === 0) invalid('instrumentList must hold at least one instrument');
  if (instrumentList.length > MAX_INSTRUMENTS_PER_REQUEST) {
    invalid(
      `${instrumentList.length} instruments exceed the limit of ${MAX_INSTRUMENTS_PER_REQUEST} per request`,
    );
  }
  const instruments: InstrumentRef[] = instrumentList.map(parseInstrument);
  return { requestCode: code, instrumentCount: instruments.length, instrumentList: instruments };
}

function parseInstrument(entry: unknown, index: number): InstrumentRef {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    invalid(`instrumentList[${index}] must be an object`);
  }
  const instrument = entry as Record<string, unknown>;
  for (const key of Object.keys(instrument)) {
    if (key !== 'exchangeSegment' && key !== 'securityId') {
      invalid(`instrumentList[${index}] has unknown key ${preview(key)}`);
    }
  }
  if (instrument.exchangeSegment !== 'INX_EQ') {
    invalid(
      `instrumentList[${index}].exchangeSegment must be "INX_EQ", got ${preview(instrument.exchangeSegment)}`,
    );
  }
  const problem = securityIdProblem(instrument.securityId);
  if (problem !== undefined) invalid(`instrumentList[${index}].securityId ${problem}`);
  return { exchangeSegment: 'INX_EQ', securityId: instrument.securityId as string };
}

function rejectUnknownKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) invalid(`unknown key ${preview(key)} in request ${String(body.requestCode)}`);
  }
}

function invalid(message: string): never {
  throw new CodecError('INVALID_REQUEST', message);
}

/** A short rendering of a peer-sent value for an error message (never the whole input). */
function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
