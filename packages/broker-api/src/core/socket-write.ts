/**
 * When a request really reaches its socket. A category counted from the send needs the moment the
 * request leaves; the transport marks it just before calling fetch, but fetch may still hold it (for
 * a connection, for the socket's previous answer to end, for the event loop) before it writes it,
 * and under load bench:quotes saw that wait reach 17-58 ms, more than the quote margin. Node's fetch
 * (undici) publishes each request's head as it writes it on the `undici:client:sendHeaders`
 * diagnostics channel, with the request's origin and path; a fetch in flight here is told of every
 * write to its origin and path, once the write is done (the mark is then a little late, never early).
 *
 * Matched by origin and path, not by call: undici writes a request held back from the socket's own
 * events, outside the async context of the call that made it. Another call to the same path being
 * told instead is harmless: the callback only moves a category's latest slot later
 * (RateLimiter.markSent), so it can delay the next send, never advance it. With a fetch that is not
 * undici nothing is published, and the mark before fetch stands.
 */
import { subscribe } from 'node:diagnostics_channel';

/** Whether the request was the first its connection carried (the connection was just opened). */
export type WrittenOn = 'fresh' | 'reused';

interface PendingWrite {
  readonly origin: string;
  readonly path: string;
  readonly onWritten: (connection: WrittenOn) => void;
}

/** The fetches in flight that wait to hear of their write: bounded by the calls in flight. */
const pending = new Set<PendingWrite>();

/** Sockets that have carried a request: weakly held, so a closed socket leaves nothing behind. */
const carried = new WeakSet<object>();

subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as {
    request?: { origin?: unknown; path?: unknown };
    socket?: unknown;
  };
  let connection: WrittenOn = 'fresh';
  if (typeof socket === 'object' && socket !== null) {
    if (carried.has(socket)) connection = 'reused';
    else carried.add(socket);
  }
  if (pending.size === 0) return;
  const origin = originOf(request?.origin);
  for (const write of pending) {
    // After the write, not in it: undici publishes just before it writes, and the callback's work
    // (a shared slot is a file rewritten) would hold the request back from its socket past the mark.
    if (write.path === request?.path && write.origin === origin)
      queueMicrotask(() => write.onWritten(connection));
  }
});

function originOf(value: unknown): string | undefined {
  try {
    return new URL(String(value)).origin;
  } catch {
    return undefined;
  }
}

/**
 * Runs `send` (a fetch of `url`), calling `onWritten` whenever a request to `url` is written, with
 * whether its connection had carried a request before.
 */
export async function whenWritten<T>(
  url: string,
  onWritten: (connection: WrittenOn) => void,
  send: () => Promise<T>,
): Promise<T> {
  const parsed = new URL(url);
  const write: PendingWrite = {
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
    onWritten,
  };
  pending.add(write);
  try {
    return await send();
  } finally {
    pending.delete(write);
  }
}
