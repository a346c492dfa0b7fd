/**
 * A raw TCP connection to an HTTP server, for tests of what a hostile client does below HTTP (send
 * nothing, trickle a body, hold connections): everything received is kept, and every wait has a
 * deadline and answers false when it passes, so a test asserts what happened, never how fast.
 */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far (latin1). */
  received(): string;
  /** True once the server has closed the connection; false if it is still open at the deadline. */
  closed(deadlineMs?: number): Promise<boolean>;
  /** True once `text` has been received `times` times in all; false at the deadline. */
  receivedText(text: string, deadlineMs?: number, times?: number): Promise<boolean>;
}

/** Long enough for anything these tests wait for on a loaded machine. */
export const RAW_DEADLINE_MS = 20_000;

export interface RawConnectionOptions {
  /** The loopback address to connect from (Linux routes all of 127/8 to loopback). */
  localAddress?: string;
  /**
   * A server that refuses at accept resets the socket, which the client may see before or after its
   * connect completes: with this, such a connection is returned closed instead of failing the open.
   */
  resetIsClosed?: boolean;
}

export async function openRawConnection(
  port: number,
  host = '127.0.0.1',
  options: RawConnectionOptions = {},
): Promise<RawConnection> {
  const socket = connect({
    port,
    host,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  let data = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('latin1');
  });
  // A reset by the server is one way of being closed: recorded by 'close', not thrown.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    isClosed = true;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    if (options.resetIsClosed) socket.once('close', () => resolve());
    else socket.once('error', reject);
  });
  const until = async (done: () => boolean, deadlineMs: number): Promise<boolean> => {
    const end = Date.now() + deadlineMs;
    while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    return done();
  };
  return {
    socket,
    received: () => data,
    closed: (deadlineMs = RAW_DEADLINE_MS) => until(() => isClosed, deadlineMs),
    receivedText: (text, deadlineMs = RAW_DEADLINE_MS, times = 1) =>
      until(() => data.split(text).length - 1 >= times, deadlineMs),
  };
}

/** Sends a request head and then `bodyBytes` one byte every `everyMs` until the server closes. Returns bytes sent. */
export async function trickleBody(
  connection: RawConnection,
  head: string,
  bodyBytes: number,
  everyMs: number,
): Promise<number> {
  connection.socket.write(head);
  let sent = 0;
  while (sent < bodyBytes && !(await connection.closed(everyMs))) {
    connection.socket.write('1');
    sent += 1;
  }
  return sent;
}
