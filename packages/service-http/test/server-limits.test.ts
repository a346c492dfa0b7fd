/**
 * Issue 37, item 3: every server made through httpServerOptions (and so both services) closes
 * connections that send nothing, cuts a body that trickles in, and refuses connections beyond the
 * process's cap while the answers in progress go on (and make room by closing idle ones first). Short limits set through the options;
 * every wait has a deadline, nothing asserts how fast.
 */
import type { Socket } from 'node:net';
import { DEFAULT_HTTP_SERVER_LIMITS, type HttpServerLimits, limitedServerStats } from '@feedpipe/service-kit';
import { openRawConnection, RAW_DEADLINE_MS, type RawConnection, trickleBody } from '@feedpipe/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { httpServerOptions, installErrorHandler } from '../src/index.js';

const DEADLINE_MS = RAW_DEADLINE_MS;

const apps: FastifyInstance[] = [];
/** Releases of the /hold requests in progress. */
const held = new Set<() => void>();

async function until(done: () => boolean, deadlineMs = DEADLINE_MS): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return done();
}
const sockets: Socket[] = [];
afterEach(async () => {
  for (const release of held) release();
  held.clear();
  for (const s of sockets.splice(0)) s.destroy();
  for (const app of apps.splice(0)) await app.close();
});

async function serve(limits: Partial<HttpServerLimits>): Promise<number> {
  return (await serveApp(limits)).port;
}

async function serveApp(limits: Partial<HttpServerLimits>): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify(
    httpServerOptions({
      ...DEFAULT_HTTP_SERVER_LIMITS,
      checkIntervalMs: 100,
      maxConnections: 1_000,
      ...limits,
    }),
  );
  installErrorHandler(app);
  app.get('/ok', async () => ({ ok: true }));
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { ok: 'late' };
  });
  app.post('/echo', async (request) => ({ size: JSON.stringify(request.body).length }));
  // Answered when the test releases it: a connection that is being answered for as long as needed.
  app.get('/hold', async () => {
    await new Promise<void>((resolve) => held.add(resolve));
    return { ok: 'released' };
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { app, port: address.port };
}

const open = async (port: number): Promise<RawConnection> => {
  const c = await openRawConnection(port);
  sockets.push(c.socket);
  return c;
};

/** A connection from `localAddress`, returned closed when the server resets it at accept. */
async function openFrom(localAddress: string, port: number): Promise<RawConnection> {
  const c = await openRawConnection(port, '127.0.0.1', { localAddress, resetIsClosed: true });
  sockets.push(c.socket);
  return c;
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`;

describe('idle connections', () => {
  it('a connection that sends nothing is closed after the idle timeout', async () => {
    const port = await serve({ idleTimeoutMs: 300 });
    const idle = await open(port);
    expect(await idle.closed()).toBe(true);
    expect(idle.received()).toBe('');
  });

  it('half a request head, then silence: closed too', async () => {
    const port = await serve({ idleTimeoutMs: 300 });
    const c = await open(port);
    c.socket.write('GET /ok HTTP/1.1\r\nHost: 127');
    expect(await c.closed()).toBe(true);
  });

  it('an answer being computed longer than the idle timeout is still delivered', async () => {
    const port = await serve({ idleTimeoutMs: 300 });
    const c = await open(port);
    c.socket.write(GET('/slow'));
    expect(await c.receivedText('"late"')).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 200/);
  });

  it('a keep-alive connection is closed after its keep-alive timeout once answered', async () => {
    const port = await serve({ idleTimeoutMs: 60_000, keepAliveTimeoutMs: 300 });
    const c = await open(port);
    c.socket.write(GET('/ok'));
    expect(await c.receivedText('{"ok":true}')).toBe(true);
    expect(await c.closed()).toBe(true);
  });
});

describe('slow bodies', () => {
  it('a body sent a byte at a time is cut by the request timeout (408), not kept open', async () => {
    const port = await serve({ idleTimeoutMs: 60_000, headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const c = await open(port);
    // One byte every 200 ms: each byte resets an idle timer, only the request deadline ends it.
    const sent = await trickleBody(
      c,
      'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      200,
      200,
    );
    expect(await c.closed()).toBe(true);
    expect(sent).toBeLessThan(200);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a body that stops arriving is closed after the idle timeout', async () => {
    const port = await serve({ idleTimeoutMs: 300 });
    const c = await open(port);
    c.socket.write(
      'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    expect(await c.closed()).toBe(true);
    expect(c.received()).not.toMatch(/200 OK/);
  });
});

describe('the connection cap', () => {
  it('an idle-connection flood cannot keep a client out: the oldest idle connection makes room', async () => {
    // A cap of its own (servers with the same cap share one budget in a process).
    const port = await serve({ idleTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, maxConnections: 3 });
    const flood: RawConnection[] = [];
    for (let i = 0; i < 20; i += 1) flood.push(await open(port));
    const client = await open(port);
    client.socket.write(GET('/ok'));
    expect(await client.receivedText('{"ok":true}')).toBe(true);
    // All but the newest idle ones were closed to make room; none of them got anything.
    for (const idle of flood.slice(0, 17)) expect(await idle.closed()).toBe(true);
    expect(flood.every((c) => c.received() === '')).toBe(true);
  });

  it('refuses connections beyond it while every one is being answered, and those answers go on', async () => {
    const port = await serve({ idleTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, maxConnections: 3 });
    const busy: RawConnection[] = [];
    for (let i = 0; i < 3; i += 1) {
      const c = await open(port);
      c.socket.write(GET('/hold'));
      busy.push(c);
    }
    expect(await until(() => held.size === 3)).toBe(true);
    const refused: RawConnection[] = [];
    for (let i = 0; i < 5; i += 1) refused.push(await openFrom('127.0.0.1', port));
    for (const r of refused) {
      // Asked for an answer: one that had been accepted would get it.
      r.socket.write(GET('/ok'));
      expect(await r.closed()).toBe(true);
      expect(r.received()).toBe('');
    }
    for (const release of held) release();
    for (const c of busy) {
      expect(await c.receivedText('"released"')).toBe(true);
      expect(c.received()).toMatch(/^HTTP\/1\.1 200/);
    }
  });
});

describe('the cap per client address', () => {
  it('resets the N+1th connection of an address at accept, before HTTP reads its request', async () => {
    // A per-address cap of its own value: caps of the same value are shared in a process.
    const { app, port } = await serveApp({
      idleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 60_000,
      maxConnectionsPerAddress: 2,
    });
    const first = await open(port);
    const second = await open(port);
    const third = await openFrom('127.0.0.1', port);
    third.socket.write(GET('/ok'));
    expect(await third.closed()).toBe(true);
    // A complete request, never answered: the socket never reached the HTTP server.
    expect(third.received()).toBe('');
    expect(limitedServerStats(app.server)?.addressCap.refused).toBe(1);
    // The two within the cap are served, and were not pushed out to make room.
    for (const c of [first, second]) {
      c.socket.write(GET('/ok'));
      expect(await c.receivedText('{"ok":true}')).toBe(true);
    }
  });

  it('another address has a share of its own, and a closed connection frees its slot', async () => {
    const port = await serve({
      idleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 60_000,
      maxConnectionsPerAddress: 1,
    });
    const held = await openFrom('127.0.0.2', port);
    const over = await openFrom('127.0.0.2', port);
    expect(await over.closed()).toBe(true);
    const other = await openFrom('127.0.0.3', port);
    other.socket.write(GET('/ok'));
    expect(await other.receivedText('{"ok":true}')).toBe(true);
    held.socket.destroy();
    // Once the server has seen the close, the address has its slot again.
    let again: RawConnection | undefined;
    const end = Date.now() + DEADLINE_MS;
    while (Date.now() < end) {
      const attempt = await openFrom('127.0.0.2', port);
      attempt.socket.write(GET('/ok'));
      if (await attempt.receivedText('{"ok":true}', 1_000)) {
        again = attempt;
        break;
      }
    }
    expect(again?.received()).toMatch(/^HTTP\/1\.1 200/);
  });
});
