/**
 * Issue 37, item 3, on the query API as it runs: idle connections closed, bodies that trickle into
 * /v1/sql and /clickhouse cut by the request deadline, a flood of idle connections beyond the cap
 * unable to keep a client out; and every answer carries nosniff, /docs a CSP and frame
 * refusal (low findings). Before, a connection that sent nothing stayed open for good and a body
 * sent a byte every 5 s stayed open past 150 s. Short limits through the `server` options.
 */
import { openRawConnection, type RawConnection, trickleBody } from '@feedpipe/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

let h: Harness;
let port: number;
const open: RawConnection[] = [];

beforeAll(async () => {
  h = await startHarness(
    {
      server: {
        idleTimeoutMs: 500,
        headersTimeoutMs: 1_000,
        requestTimeoutMs: 1_500,
        keepAliveTimeoutMs: 60_000,
        checkIntervalMs: 100,
        maxConnections: 4,
      },
    },
    {},
    false,
  );
  port = Number(new URL(await h.api.start()).port);
});

afterEach(() => {
  for (const c of open.splice(0)) c.socket.destroy();
});

afterAll(async () => {
  await h?.close();
});

async function connection(): Promise<RawConnection> {
  const c = await openRawConnection(port);
  open.push(c);
  return c;
}

const head = (method: string, path: string, headers: Record<string, string>, length?: number) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}${length === undefined ? '' : `Content-Length: ${length}\r\n`}\r\n`;

describe('query API connections', () => {
  it('closes a connection that sends nothing', async () => {
    const idle = await connection();
    expect(await idle.closed()).toBe(true);
    expect(idle.received()).toBe('');
  });

  it('cuts a body that trickles into /v1/sql or /clickhouse (408), whatever the key', async () => {
    for (const path of ['/v1/sql', '/clickhouse/']) {
      const c = await connection();
      const sent = await trickleBody(
        c,
        head('POST', path, { ...h.read, 'content-type': 'text/plain' }, 10_000),
        10_000,
        200,
      );
      expect(await c.closed()).toBe(true);
      expect(sent).toBeLessThan(10_000);
      expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
    }
  });

  it('an idle-connection flood beyond the cap does not keep a client out', async () => {
    // The cap is 4: every connection of the flood beyond it closes the oldest idle one.
    const flood: RawConnection[] = [];
    for (let i = 0; i < 40; i += 1) flood.push(await connection());
    const client = await connection();
    client.socket.write(head('GET', '/healthz', {}));
    expect(await client.receivedText('"ok"')).toBe(true);
    for (const idle of flood) expect(await idle.closed()).toBe(true);
    expect(flood.every((c) => c.received() === '')).toBe(true);
    // What an operator sees: connections closed to make room, and for silence.
    const metrics = (await h.api.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]);
    expect(value('query_api_http_connections_evicted_total')).toBeGreaterThan(0);
    expect(value('query_api_http_connections_idle_closed_total')).toBeGreaterThan(0);
    expect(value('query_api_http_connections_open')).toBeLessThanOrEqual(4);
  });
});

describe('response headers', () => {
  it('nosniff on every answer, errors and caller text included', async () => {
    for (const [url, headers] of [
      ['/healthz', {}],
      ['/v1/instruments/1', {}],
      ['/no-such-route', h.read],
      ['/v1/sql?q=SELECT%20%27%3Cscript%3E%27&format=csv', h.read],
      ['/v1/instruments/%zz<script>', h.read],
    ] as const) {
      const response = await h.api.app.inject({ method: 'GET', url, headers });
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      // A URL fastify cannot decode is refused in the envelope, not echoed back.
      if (url.includes('%zz')) expect(response.body, url).not.toContain('<script>');
    }
    // Through the server itself too (the header is set before anything answers).
    const bad = await openRawConnection(port);
    open.push(bad);
    bad.socket.write(head('GET', '/v1/instruments/%zz', {}));
    expect(await bad.receivedText('\r\n\r\n')).toBe(true);
    expect(bad.received()).toMatch(/^HTTP\/1\.1 400/);
    expect(bad.received().toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(bad.received()).toContain('"code":"BAD_REQUEST"');
  });

  it('/docs: a Content-Security-Policy and X-Frame-Options DENY, and the page still loads its UI', async () => {
    const page = await h.api.app.inject({ method: 'GET', url: '/docs/' });
    const html =
      page.statusCode === 302
        ? await h.api.app.inject({ method: 'GET', url: page.headers.location as string })
        : page;
    expect(html.statusCode).toBe(200);
    expect(html.headers['x-frame-options']).toBe('DENY');
    const csp = String(html.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    // Every script and stylesheet of the page is a file of this origin, which the policy allows.
    expect(html.body).not.toMatch(/<script>(?!\s*<\/script>)|<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    for (const asset of html.body.matchAll(/(?:src|href)="(\.\/|\/)?([^"]+\.(?:js|css))"/g)) {
      const url = asset[1] === '/' ? `/${asset[2]}` : `/docs/${asset[2]}`;
      const file = await h.api.app.inject({ method: 'GET', url });
      expect(file.statusCode, url).toBe(200);
      expect(file.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
