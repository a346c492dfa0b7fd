/**
 * The one WebSocket a feed connection attempt talks through, as `FeedConnection` needs it: open with
 * a greeting, read messages stamped with when they were read, send, pause, close. Two ways to hold
 * it, one contract:
 * - `openInThread`: the `ws` socket on the caller's thread (the connection's own event loop reads
 *   it and stamps what it reads);
 * - socket-thread.ts: the socket on a thread of its own that does nothing but read and write feed
 *   sockets, so a busy main thread (a garbage collection, a Kafka batch, a handover's bookkeeping)
 *   delays neither the greeting nor the time a message is stamped with.
 *
 * The greeting is what the connection sends the moment the socket opens (its held subscriptions):
 * sent by whoever holds the socket, before the open is even reported, so the service starts
 * streaming one round trip after the upgrade whatever the connection's thread is doing.
 */
import WebSocket from 'ws';
import { nowMicros } from '../epoch-micros.js';

/** What a feed socket reports; each handler may be swapped while the socket lives (see `listen`). */
export interface FeedSocketHandlers {
  /** The upgrade succeeded at `atMs` (epoch ms, as the socket's thread saw it); the greeting is sent. */
  open(atMs: number): void;
  /** One message, as received at `receivedAtMicros` (epoch µs, as the socket's thread saw it). */
  message(data: Buffer, isBinary: boolean, receivedAtMicros: number): void;
  ping(): void;
  /** The server answered the upgrade with an HTTP status instead. */
  refused(status: number): void;
  /** The socket closed at `atMs` (1006 when it never opened or was cut). Last event. */
  close(code: number, atMs: number): void;
}

export interface FeedSocketOptions {
  /** Upgrade timeout. */
  handshakeTimeoutMs: number;
  /** Messages sent the moment the socket opens, before `open` is reported. */
  greeting: readonly string[];
}

export interface FeedSocket {
  /** Open and not closing: `send` reaches the server. */
  readonly writable: boolean;
  /** Replaces the handlers given so far (the ones not named stay). */
  listen(handlers: Partial<FeedSocketHandlers>): void;
  /** Sends when writable; otherwise does nothing (the caller checked `writable` when it mattered). */
  send(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
  terminate(): void;
  pause(): void;
  resume(): void;
}

/** Opens feed sockets (`url` carries the credentials: never log it). */
export type FeedSocketOpener = (
  url: URL,
  options: FeedSocketOptions,
  handlers: FeedSocketHandlers,
) => FeedSocket;

/** Largest feed message accepted (the spec's messages are far smaller). */
export const MAX_FEED_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Opens a `ws` socket for the feed: no compression (the feed is binary and the spec offers none),
 * the greeting sent from inside the open event. Used on the caller's thread here and on the socket
 * thread by socket-thread-worker.ts.
 */
export function openFeedWebSocket(
  url: URL,
  options: FeedSocketOptions,
  handlers: FeedSocketHandlers,
  stamp: () => number = nowMicros,
): WebSocket {
  const socket = new WebSocket(url, {
    perMessageDeflate: false,
    handshakeTimeout: options.handshakeTimeoutMs,
    maxPayload: MAX_FEED_MESSAGE_BYTES,
  });
  socket.on('unexpected-response', (_request, response) => {
    response.resume();
    handlers.refused(response.statusCode ?? 0);
  });
  socket.on('open', () => {
    const atMs = Date.now();
    for (const message of options.greeting) socket.send(message);
    handlers.open(atMs);
  });
  socket.on('ping', () => handlers.ping());
  socket.on('message', (data: Buffer, isBinary: boolean) => handlers.message(data, isBinary, stamp()));
  socket.on('error', () => {
    // 'close' follows and says what happened.
  });
  socket.on('close', (code: number) => handlers.close(code, Date.now()));
  return socket;
}

/** The feed socket on the caller's thread. */
export const openInThread: FeedSocketOpener = (url, options, handlers) => {
  const current: FeedSocketHandlers = { ...handlers };
  const socket = openFeedWebSocket(url, options, {
    open: (atMs) => current.open(atMs),
    message: (data, isBinary, at) => current.message(data, isBinary, at),
    ping: () => current.ping(),
    refused: (status) => current.refused(status),
    close: (code, atMs) => current.close(code, atMs),
  });
  return {
    get writable() {
      return socket.readyState === WebSocket.OPEN;
    },
    listen: (next) => Object.assign(current, next),
    send: (data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    close: (code, reason) => socket.close(code, reason),
    terminate: () => socket.terminate(),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
  };
};
