import { subscribe } from 'node:diagnostics_channel';

/**
 * Records when each quote request of this process was written to its socket (undici's
 * `undici:client:sendHeaders` diagnostics channel, which Node's fetch publishes), into `sends`:
 * the moment the limiter counts a quote request from (broker-api core/socket-write.ts), which
 * bench:quotes compares with when the simulator saw each arrive.
 */
export function recordQuoteSends(sends: number[]): void {
  subscribe('undici:client:sendHeaders', (message) => {
    const path = (message as { request?: { path?: string } }).request?.path ?? '';
    if (path.endsWith('/marketfeed/quote')) sends.push(Date.now());
  });
}
