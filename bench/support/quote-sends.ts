import { subscribe } from 'node:diagnostics_channel';
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

/**
 * Records when each quote request of this process was written to its socket (undici's
 * `undici:client:sendHeaders` diagnostics channel, which Node's fetch publishes), into `writes`:
 * against `recordQuoteSends`, how long a request waited in this process after the limiter let it go.
 */
export function recordQuoteWrites(writes: number[]): void {
  subscribe('undici:client:sendHeaders', (message) => {
    const path = (message as { request?: { path?: string } }).request?.path ?? '';
    if (path.endsWith('/marketfeed/quote')) writes.push(Date.now());
  });
}
