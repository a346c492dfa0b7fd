import { RateLimiter } from './limiter.js';
import type { SharedSlots } from './shared-slots.js';

/**
 * Margin of the quote window (ms): how much later after its send one request may reach the service
 * than the one before it. The simulator counts a request when its head arrives, in a sliding window
 * (the real service's counting is "not shown"; a sliding window is the strictest reading of "1 per
 * second", and a client within it is within any per-second bucket too). At 1 request a second the
 * margin is also the rate given up: 8 ms leaves 99.2% of the category, less the timers' own lateness.
 */
export const DEFAULT_QUOTE_MARGIN_MS = 8;

/**
 * The limiter of a process that shares the account's quote category: quote windows count from each
 * send plus `marginMs` (RateLimiterOptions.countFromSend), so the category's rate is used whole, and
 * with `sharedSlots` the grants are shared with the account's other processes (the quote poller and
 * the trading gateway, packages/credentials' FileRateSlots).
 */
export function sharedQuoteLimiter(
  marginMs: number = DEFAULT_QUOTE_MARGIN_MS,
  sharedSlots?: SharedSlots,
): RateLimiter {
  return new RateLimiter({
    countFromSend: ['quote'],
    windowMarginMs: marginMs,
    ...(sharedSlots === undefined ? {} : { sharedSlots }),
  });
}
