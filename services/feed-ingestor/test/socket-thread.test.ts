/**
 * The feed sockets' own thread (feed/socket-thread.ts) against a WebSocket server on another thread:
 * the greeting leaves and messages are stamped while the main thread is blocked; messages, pings
 * and the close arrive in the order the socket saw them; a thread that ends closes its sockets as
 * cut; a retired thread ends after its last socket. And a connection's greeting
 * (feed-connection.ts): what it held when the socket was asked for, brought up to date when the
 * open is reported.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedConnection } from '../src/feed/feed-connection.js';
import type { FeedSocket, FeedSocketHandlers, FeedSocketOptions } from '../src/feed/feed-socket.js';
import { SocketThread } from '../src/feed/socket-thread.js';
import type { HeldByConnection } from '../src/feed/subscription-book.js';

/**
 * A WebSocket server on a thread of its own (so a blocked main thread does not block it). On each
 * text message it notes when it came, then answers as the message asks: `burst` sends 50 binary
 * messages (the i-th holding i), a text one, a ping and closes with 4001; anything else gets one
 * binary message back.
 */
const SERVER = `
const { parentPort } = require('node:worker_threads');
const { WebSocketServer } = require('ws');
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('listening', () => parentPort.postMessage({ port: wss.address().port }));
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const text = data.toString();
    parentPort.postMessage({ text, atMs: Date.now() });
    if (text === 'burst') {
      for (let i = 0; i < 50; i++) ws.send(Buffer.from([i]), { binary: true });
      ws.send('not binary', { binary: false });
      ws.ping();
      ws.close(4001, 'done');
    } else {
      ws.send(Buffer.from([7, 7, 7]), { binary: true });
    }
  });
});
`;

interface Server {
  url: URL;
  received: Array<{ text: string; atMs: number }>;
  worker: Worker;
}

async function startServer(): Promise<Server> {
  const worker = new Worker(SERVER, { eval: true });
  const received: Server['received'] = [];
  const port = await new Promise<number>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: { port?: number; text?: string; atMs?: number }) => {
      if (m.port !== undefined) resolve(m.port);
      else received.push({ text: m.text ?? '', atMs: m.atMs ?? 0 });
    });
  });
  return { url: new URL(`ws://127.0.0.1:${port}/`), received, worker };
}

type Seen =
  | { ev: 'open'; atMs: number }
  | { ev: 'message'; data: number[]; binary: boolean; atMs: number }
  | { ev: 'ping' }
  | { ev: 'refused'; status: number }
  | { ev: 'close'; code: number };

function recorder(): { seen: Seen[]; handlers: FeedSocketHandlers } {
  const seen: Seen[] = [];
  return {
    seen,
    handlers: {
      open: (atMs) => seen.push({ ev: 'open', atMs }),
      message: (data, binary, at) => seen.push({ ev: 'message', data: [...data], binary, atMs: at / 1000 }),
      ping: () => seen.push({ ev: 'ping' }),
      refused: (status) => seen.push({ ev: 'refused', status }),
      close: (code) => seen.push({ ev: 'close', code }),
    },
  };
}

function blockFor(ms: number): number {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // The main thread does nothing else: as a long garbage collection or a big batch would.
  }
  return Date.now();
}

let server: Server | undefined;
let thread: SocketThread | undefined;

afterEach(async () => {
  await thread?.stop();
  await server?.worker.terminate();
  thread = undefined;
  server = undefined;
});

describe('socket thread', () => {
  it('sends the greeting as the socket opens and stamps what it reads, while the main thread is blocked', async () => {
    server = await startServer();
    thread = new SocketThread();
    // A first socket starts the thread (loading it takes longer than the block below).
    const first = recorder();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['warm'] }, first.handlers);
    await waitFor(() => first.seen.some((s) => s.ev === 'message'), 20_000, 'the first socket answered');

    const second = recorder();
    const askedAt = Date.now();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['hello'] }, second.handlers);
    const unblockedAt = blockFor(500);
    await waitFor(() => second.seen.some((s) => s.ev === 'message'), 5_000, 'the second socket answered');

    const greeting = server.received.find((r) => r.text === 'hello');
    expect(greeting?.atMs).toBeGreaterThanOrEqual(askedAt);
    expect(greeting?.atMs).toBeLessThan(unblockedAt);
    const [open, message] = second.seen;
    expect(open).toMatchObject({ ev: 'open' });
    expect(message).toMatchObject({ ev: 'message', data: [7, 7, 7], binary: true });
    // Both stamped on the socket's thread, before this one could have looked.
    expect((open as { atMs: number }).atMs).toBeLessThan(unblockedAt);
    expect((message as { atMs: number }).atMs).toBeLessThan(unblockedAt);
    expect((message as { atMs: number }).atMs).toBeGreaterThanOrEqual((open as { atMs: number }).atMs);
  });

  it('passes messages, a ping and the close on in the order the socket saw them', async () => {
    server = await startServer();
    thread = new SocketThread();
    const r = recorder();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['burst'] }, r.handlers);
    await waitFor(
      () => r.seen.some((s) => s.ev === 'close'),
      20_000,
      () => `the close; saw ${JSON.stringify(r.seen)}`,
    );
    const binary = r.seen.filter((s) => s.ev === 'message' && s.binary);
    expect(binary.map((s) => (s as { data: number[] }).data[0])).toEqual([...Array(50).keys()]);
    expect(r.seen.map((s) => s.ev).slice(-3)).toEqual(['message', 'ping', 'close']);
    expect(r.seen.at(-3)).toMatchObject({ binary: false });
    expect(r.seen.at(-1)).toEqual({ ev: 'close', code: 4001 });
    expect(thread.sockets).toBe(0);
  });

  it('closes its sockets as cut (1006) when the thread ends, and reports nothing after', async () => {
    server = await startServer();
    thread = new SocketThread();
    const r = recorder();
    const socket = thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['x'] }, r.handlers);
    await waitFor(() => r.seen.some((s) => s.ev === 'message'), 20_000, 'an answer');
    expect(socket.writable).toBe(true);
    await thread.stop();
    expect(r.seen.at(-1)).toEqual({ ev: 'close', code: 1006 });
    expect(socket.writable).toBe(false);
    socket.send('ignored');
    expect(server.received.map((m) => m.text)).toEqual(['x']);
  });

  it('ends once retired and its last socket has closed; an open afterwards starts it again', async () => {
    server = await startServer();
    thread = new SocketThread();
    thread.start();
    const r = recorder();
    const socket = thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['x'] }, r.handlers);
    await waitFor(() => r.seen.some((s) => s.ev === 'message'), 20_000, 'an answer');
    thread.retire();
    expect(thread.running).toBe(true);
    socket.close(1000, 'done');
    await waitFor(() => !thread?.running, 5_000, 'the thread to end');
    expect(r.seen.at(-1)).toMatchObject({ ev: 'close', code: 1000 });
    // A thread retired with no socket ends at once; an open brings one back.
    const again = recorder();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['y'] }, again.handlers);
    expect(thread.running).toBe(true);
    await waitFor(() => again.seen.some((s) => s.ev === 'message'), 20_000, 'an answer on a new thread');
  });

  it("keeps a socket opened while the thread ends: it is the next thread's", async () => {
    server = await startServer();
    thread = new SocketThread();
    const first = recorder();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['a'] }, first.handlers);
    await waitFor(() => first.seen.some((s) => s.ev === 'message'), 20_000, 'an answer');
    const ending = thread.stop();
    const next = recorder();
    thread.open(server.url, { handshakeTimeoutMs: 5_000, greeting: ['b'] }, next.handlers);
    await ending;
    expect(first.seen.at(-1)).toEqual({ ev: 'close', code: 1006 });
    await waitFor(() => next.seen.some((s) => s.ev === 'message'), 20_000, 'an answer on the next thread');
    expect(next.seen.some((s) => s.ev === 'close')).toBe(false);
  });

  it('lets its process exit once nothing else keeps it running', async () => {
    // A port that was free a moment ago: the socket is refused and closes.
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const fixture = new URL('./fixtures/socket-thread-exit.ts', import.meta.url).pathname;
    const outcome = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', fixture, String(port)],
        { timeout: 30_000 },
        (_error, stdout) => resolve({ code: child.exitCode, stdout }),
      );
    });
    expect(outcome.stdout).toContain('closed 1006');
    // Killed by the time-out instead, it would have no exit code.
    expect(outcome.code).toBe(0);
  });
});

describe('a connection greeting through its socket', () => {
  it('greets with what it holds, then subscribes what was added and unsubscribes what was taken off before the open', () => {
    const trade = new Set(['11', '12']);
    const held: HeldByConnection = { trade, ohlc: new Set(['21']) };
    const opened: Array<{ options: FeedSocketOptions; handlers: FeedSocketHandlers; sent: string[] }> = [];
    const connection = new FeedConnection({
      index: 0,
      url: 'ws://127.0.0.1:1/',
      credentials: () => ({ clientId: 'c', token: 't', authType: 2 }),
      events: { onFrame: () => undefined },
      subscriptions: held,
      openSocket: (_url, options, handlers) => {
        const sent: string[] = [];
        opened.push({ options, handlers, sent });
        const socket: FeedSocket = {
          writable: true,
          listen: (next) => Object.assign(handlers, next),
          send: (data) => void sent.push(String(data)),
          close: () => undefined,
          terminate: () => undefined,
          pause: () => undefined,
          resume: () => undefined,
        };
        return socket;
      },
    });
    connection.start();
    expect(opened).toHaveLength(1);
    const [socket] = opened as [(typeof opened)[number]];
    const ids = (request: string) =>
      (JSON.parse(request) as { instrumentList: Array<{ securityId: string }> }).instrumentList.map(
        (i) => i.securityId,
      );
    const codeOf = (request: string) => (JSON.parse(request) as { requestCode: number }).requestCode;
    expect(socket.options.greeting.map((g) => [codeOf(g), ids(g)])).toEqual([
      [15, ['11', '12']],
      [17, ['21']],
    ]);
    // While the socket was opening: one instrument added, one taken off.
    trade.add('13');
    trade.delete('11');
    const openedAtMs = Date.now() - 250;
    socket.handlers.open(openedAtMs);
    expect(connection.state).toBe('open');
    expect(connection.stateSince).toBe(openedAtMs);
    expect(socket.sent.map((g) => [codeOf(g), ids(g)])).toEqual([
      [15, ['13']],
      [16, ['11']],
    ]);
    connection.stop();
  });
});
