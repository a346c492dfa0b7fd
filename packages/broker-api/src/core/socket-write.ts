/**
 * When a request really reaches its socket. A category counted from the send needs the moment the
 * request leaves; the transport marks it just before calling fetch, but fetch may still wait (for a
 * connection, for the event loop) before it writes the request, and under load that wait was up to
 * 17 ms in bench:quotes, more than the quote margin. Node's fetch (undici) publishes each request's
 * head as it writes it on the `undici:client:sendHeaders` diagnostics channel; `whenWritten` runs
 * `send` with a callback that that event calls, found through the async context of the call.
 *
 * The callback may only move a slot later (RateLimiter.markSent), so an event reaching the wrong
 * call (a socket's write in another call's context) can delay a slot, never advance one. With a
 * fetch that is not undici nothing is published, and the mark before fetch stands.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

const written = new AsyncLocalStorage<() => void>();

subscribe('undici:client:sendHeaders', () => {
  written.getStore()?.();
});

/** Runs `send`, calling `onWritten` whenever a request of it is written to a socket. */
export function whenWritten<T>(onWritten: () => void, send: () => Promise<T>): Promise<T> {
  return written.run(onWritten, send);
}
