/** Postback delivery options, validated once: unknown keys and bad values are refused by name. */

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

const KEYS = Object.keys(DEFAULT_POSTBACK_OPTIONS) as (keyof ResolvedPostbackOptions)[];

export function resolvePostbackOptions(options: PostbackOptions = {}): ResolvedPostbackOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('postbacks: options must be an object');
  }
  for (const k of Object.keys(options)) {
    if (!(KEYS as string[]).includes(k)) {
      throw new TypeError(`postbacks: unknown option "${k}" (allowed: ${KEYS.join(', ')})`);
    }
  }
  const out = { ...DEFAULT_POSTBACK_OPTIONS };
  for (const k of KEYS) {
    const v = options[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      throw new TypeError(`postbacks: ${k} must be an integer >= 1`);
    }
    out[k] = v;
  }
  if (out.retryMaxMs < out.retryBaseMs) {
    throw new TypeError('postbacks: retryMaxMs must be at least retryBaseMs');
  }
  return out;
}
