/**
 * The messages between a connection pool's main thread and its socket thread (socket-thread.ts,
 * socket-thread-worker.ts), defined once. Sockets are numbered by the main thread.
 */

/** Main thread -> socket thread. */
export type SocketCommand =
  | { op: 'open'; id: number; url: string; handshakeTimeoutMs: number; greeting: readonly string[] }
  | { op: 'send'; id: number; data: string | Uint8Array }
  | { op: 'close'; id: number; code: number; reason: string }
  | { op: 'terminate'; id: number }
  | { op: 'pause'; id: number }
  | { op: 'resume'; id: number };

/**
 * Socket thread -> main thread, in the order things happened on each socket. The messages a socket
 * read in one go travel as one `messages` batch: their bytes back to back in one transferred
 * buffer, `ends[i]` the end of the i-th, `binary[i]` 1 for a binary message, `receivedAtMicros[i]`
 * when the socket thread read it.
 */
export type SocketReport =
  | { ev: 'open'; id: number; atMs: number }
  | {
      ev: 'messages';
      id: number;
      bytes: ArrayBuffer;
      ends: Uint32Array;
      binary: Uint8Array;
      receivedAtMicros: Float64Array;
    }
  | { ev: 'ping'; id: number }
  | { ev: 'refused'; id: number; status: number }
  | { ev: 'close'; id: number; code: number; atMs: number };
