/** Postback delivery options, read once by readOptions: unknown keys and bad values are refused by name. */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { invalidOption, SimError } from '../market/errors.js';

export interface PostbackOptions {
  /**
   * How long one update keeps being retried (from when it was queued) before it is dropped and
   * counted in `dropped`. Default 60,000 ms.
   */
  giveUpAfterMs?: number;
  /** First retry delay; doubles per attempt, with full jitter. Default 200 ms. */
  retryBaseMs?: number;
  /** Largest retry delay. Default 5,000 ms. */
  retryMaxMs?: number;
  /** Time allowed for one POST (connect to last byte of the answer). Default 5,000 ms. */
  requestTimeoutMs?: number;
  /** Updates waiting for delivery over all URLs; beyond it new ones are dropped (`overflow`). Default 10,000. */
  maxQueued?: number;
  /** POSTs in flight at once over all URLs (each order id still gets one at a time). Default 8. */
  maxConcurrent?: number;
}

export interface ResolvedPostbackOptions {
  readonly giveUpAfterMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly requestTimeoutMs: number;
  readonly maxQueued: number;
  readonly maxConcurrent: number;
}

export const DEFAULT_POSTBACK_OPTIONS: ResolvedPostbackOptions = Object.freeze({
  giveUpAfterMs: 60_000,
  retryBaseMs: 200,
  retryMaxMs: 5_000,
  requestTimeoutMs: 5_000,
  maxQueued: 10_000,
  maxConcurrent: 8,
});

/** A count or a duration in ms, from 1. */
function atLeastOne(value: number) {
  return { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: value } as const;
}

/** Every key of PostbackOptions (documented there), with its range and default. */
export const POSTBACK_OPTIONS = {
  giveUpAfterMs: atLeastOne(DEFAULT_POSTBACK_OPTIONS.giveUpAfterMs),
  retryBaseMs: atLeastOne(DEFAULT_POSTBACK_OPTIONS.retryBaseMs),
  retryMaxMs: atLeastOne(DEFAULT_POSTBACK_OPTIONS.retryMaxMs),
  requestTimeoutMs: atLeastOne(DEFAULT_POSTBACK_OPTIONS.requestTimeoutMs),
  maxQueued: atLeastOne(DEFAULT_POSTBACK_OPTIONS.maxQueued),
  maxConcurrent: atLeastOne(DEFAULT_POSTBACK_OPTIONS.maxConcurrent),
} as const satisfies OptionsSchema;

/** The options read against POSTBACK_OPTIONS (`where` names them), and the rule between two of them. */
export function checkPostbackOptions(
  values: ResolvedPostbackOptions,
  where: string,
): ResolvedPostbackOptions {
  if (values.retryMaxMs < values.retryBaseMs)
    throw new SimError('INVALID_OPTION', `${where}: "retryMaxMs" must be at least "retryBaseMs"`);
  return values;
}

export function resolvePostbackOptions(options: PostbackOptions = {}): ResolvedPostbackOptions {
  const where = 'postbacks';
  const values = readOptions(POSTBACK_OPTIONS, options, { where, fail: invalidOption });
  return checkPostbackOptions(values, where);
}
