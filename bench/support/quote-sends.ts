import type { RateLimiter } from '@feedpipe/broker-api';

/**
 * Records when each quote request leaves (the client tells its limiter just before the fetch:
 * markSent), into `sends`: what bench:quotes compares with when the service saw each arrive.
 */
export function recordQuoteSends(limiter: RateLimiter, sends: number[]): void {
  const markSent = limiter.markSent.bind(limiter);
  limiter.markSent = (category, time) => {
    if (category === 'quote') sends.push(time);
    markSent(category, time);
  };
}
