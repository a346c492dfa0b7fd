/**
 * The socket thread (socket-thread.ts): holds a pool's feed sockets and does nothing else, so the
 * moment a socket opens its greeting goes out, and every message is stamped as it is read, however
 * busy the main thread is. Messages read in one go (one read from the TCP socket) are copied into one
 * buffer and posted as one batch: one post per read, not per message.
 */
import { parentPort } from 'node:worker_threads';
import type WebSocket from 'ws';
import { openFeedWebSocket } from './feed-socket.js';
import type { SocketCommand, SocketReport } from './socket-thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('socket-thread-worker runs as a worker thread');

interface Held {
  socket: WebSocket;
  pending: Array<{ data: Buffer; binary: boolean; at: number }>;
}

const sockets = new Map<number, Held>();

function report(message: SocketReport, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

/** Posts what `id` read and has not posted yet, as one batch. */
function flush(id: number, held: Held): void {
  const pending = held.pending;
  if (pending.length === 0) return;
  held.pending = [];
  let total = 0;
  for (const m of pending) total += m.data.byteLength;
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(pending.length);
  const binary = new Uint8Array(pending.length);
  const receivedAtMicros = new Float64Array(pending.length);
  let at = 0;
  pending.forEach((m, i) => {
    bytes.set(m.data, at);
    at += m.data.byteLength;
    ends[i] = at;
    binary[i] = m.binary ? 1 : 0;
    receivedAtMicros[i] = m.at;
  });
  report({ ev: 'messages', id, bytes: bytes.buffer, ends, binary, receivedAtMicros }, [
    bytes.buffer,
    ends.buffer as ArrayBuffer,
    binary.buffer as ArrayBuffer,
    receivedAtMicros.buffer as ArrayBuffer,
  ]);
}

function open(command: Extract<SocketCommand, { op: 'open' }>): void {
  const { id } = command;
  // The handlers below run only after this turn, once `held` is in the map.
  const held: Held = {
    pending: [],
    socket: openFeedWebSocket(
      new URL(command.url),
      { handshakeTimeoutMs: command.handshakeTimeoutMs, greeting: command.greeting },
      {
        open: (atMs) => report({ ev: 'open', id, atMs }),
        message: (data, isBinary, at) => {
          if (held.pending.length === 0) queueMicrotask(() => flush(id, held));
          held.pending.push({ data, binary: isBinary, at });
        },
        ping: () => {
          flush(id, held);
          report({ ev: 'ping', id });
        },
        refused: (status) => report({ ev: 'refused', id, status }),
        close: (code, atMs) => {
          flush(id, held);
          sockets.delete(id);
          report({ ev: 'close', id, code, atMs });
        },
      },
    ),
  };
  sockets.set(id, held);
}

port.on('message', (command: SocketCommand) => {
  if (command.op === 'open') {
    open(command);
    return;
  }
  const held = sockets.get(command.id);
  if (!held) return;
  const { socket } = held;
  switch (command.op) {
    case 'send':
      if (socket.readyState === socket.OPEN) socket.send(command.data);
      return;
    case 'close':
      socket.close(command.code, command.reason);
      return;
    case 'terminate':
      socket.terminate();
      return;
    case 'pause':
      socket.pause();
      return;
    case 'resume':
      socket.resume();
      return;
  }
});
