/**
 * The ops endpoint (/metrics, /healthz, /readyz) shares its process with the pipeline: a connection
 * that sends nothing is closed, and connections beyond its small cap are refused while a connected
 * scraper is still answered (issue 37, item 3). Short limits through the options.
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

  it('refuses connections beyond its cap while a connected scraper is answered', async () => {
    const port = await start(2, 60_000);
    const scraper = await connection(port);
    scraper.socket.write(HEALTHZ);
    expect(await scraper.receivedText('"ok"')).toBe(true);
    await connection(port);
    const refused = await connection(port);
    refused.socket.write(HEALTHZ);
    expect(await refused.closed()).toBe(true);
    expect(refused.received()).toBe('');
    scraper.socket.write(HEALTHZ);
    expect(await scraper.receivedText('"ok"', undefined, 2)).toBe(true);
  });
});
