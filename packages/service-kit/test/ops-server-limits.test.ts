/**
 * The ops endpoint (/metrics, /healthz, /readyz) shares its process with the pipeline: a connection
 * that sends nothing is closed, and a flood of connections beyond its small cap cannot keep a
 * scraper out (issue 37, item 3). Short limits through the options.
 */
import { openRawConnection, type RawConnection } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { OPS_SERVER_LIMITS, type OpsServer, startOpsServer } from '../src/index.js';

const opened: RawConnection[] = [];
let ops: OpsServer | undefined;
afterEach(async () => {
  for (const c of opened.splice(0)) c.socket.destroy();
  await ops?.close();
  ops = undefined;
});

async function start(maxConnections: number, idleTimeoutMs: number): Promise<number> {
  ops = await startOpsServer({
    registries: [new Registry()],
    ready: () => ({ ready: true, detail: {} }),
    limits: { ...OPS_SERVER_LIMITS, idleTimeoutMs, keepAliveTimeoutMs: 60_000, maxConnections },
  });
  return Number(new URL(ops.url).port);
}

async function connection(port: number): Promise<RawConnection> {
  const c = await openRawConnection(port);
  opened.push(c);
  return c;
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('ops endpoint limits', () => {
  it('closes a connection that sends nothing', async () => {
    const idle = await connection(await start(64, 300));
    expect(await idle.closed()).toBe(true);
  });

  it('an idle-connection flood beyond its cap does not keep a scraper out', async () => {
    const port = await start(2, 60_000);
    const flood: RawConnection[] = [];
    for (let i = 0; i < 10; i += 1) flood.push(await connection(port));
    const scraper = await connection(port);
    scraper.socket.write(HEALTHZ);
    expect(await scraper.receivedText('"ok"')).toBe(true);
    for (const idle of flood.slice(0, 9)) expect(await idle.closed()).toBe(true);
  });
});
