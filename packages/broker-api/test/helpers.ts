import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchLike, ManualClock } from '../src/index.js';

export interface SeenRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A small real HTTP server on loopback; the handler sees each request with its body read. */
export async function startServer(
  handler: (req: SeenRequest, res: ServerResponse, raw: IncomingMessage) => void,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw.headers)) if (typeof v === 'string') headers[k] = v;
      const req: SeenRequest = {
        method: raw.method ?? '',
        url: new URL(raw.url ?? '/', 'http://127.0.0.1'),
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(req);
      handler(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export interface FakeCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: unknown;
  at: number;
}

/** An in-memory fetch: no sockets, so a ManualClock fully controls time. */
export function fakeFetch(
  clock: ManualClock,
  answer: (call: FakeCall) => { status?: number; body?: unknown },
): { fetch: FetchLike; calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  const fetch: FetchLike = async (url, init) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((init.headers ?? {}) as Record<string, string>))
      headers[k.toLowerCase()] = v;
    const text = typeof init.body === 'string' ? init.body : '';
    const call: FakeCall = {
      method: init.method ?? 'GET',
      url: new URL(url),
      headers,
      body: text.length > 0 && headers['content-type'] === 'application/json' ? JSON.parse(text) : text,
      at: clock.now(),
    };
    calls.push(call);
    const out = answer(call);
    const status = out.status ?? 200;
    return new Response(out.body === undefined ? null : JSON.stringify(out.body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, calls };
}

/**
 * Awaits `work` while moving the manual clock to each next wake-up, so paced calls run in
 * simulated time. Bounded by `maxSimMs` of simulated time.
 */
export async function runWithClock<T>(clock: ManualClock, work: Promise<T>, maxSimMs: number): Promise<T> {
  let done = false;
  const tracked = work.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  const start = clock.now();
  let idle = 0;
  // Bounded in rounds and in simulated time; idle rounds (nothing sleeps) end it after a while.
  for (let round = 0; round < 200_000 && !done && idle < 2000; round++) {
    const next = clock.nextWakeAt;
    if (next !== undefined && next - start <= maxSimMs) {
      idle = 0;
      await clock.advance(Math.max(0, next - clock.now()));
    } else {
      idle++;
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  if (!done) throw new Error(`work did not finish within ${maxSimMs} ms of simulated time`);
  return tracked;
}

/** Largest number of times within any window of `windowMs` (a sliding count). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
