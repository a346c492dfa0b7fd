/**
 * Serving from several processes (QUERY_API_WORKERS): API instances configured with `reusePort`
 * share one port and the kernel gives each of them connections, while an instance without it is
 * refused the port; the supervisor starts the first worker alone, the others on its port without
 * the bootstrap key, passes a signal on, and stops everything when a worker dies; the CLI refuses
 * workers on embedded chDB. No Kafka needed.
 */
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueryApi, type QueryApi } from '../src/index.js';
import { serveWorkers } from '../src/workers/serve-workers.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'query-api.mjs');
const FAKE_WORKER = join(import.meta.dirname, 'fixtures', 'fake-worker.mjs');
let store: Store;
const apis: QueryApi[] = [];

beforeAll(async () => {
  store = createStore({ dataDir: join(tempDir('workers'), 'chdb') });
  await runMigrations(store.internal);
});

afterAll(async () => {
  for (const api of apis) await api.stop();
  await store?.close();
});

async function healthzCount(api: QueryApi): Promise<number> {
  const reply = await api.app.inject({ method: 'GET', url: '/metrics' });
  const line = reply.body
    .split('\n')
    .find(
      (l) => l.startsWith('query_api_http_request_duration_seconds_count{') && l.includes('route="/healthz"'),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** `workers` stand-in workers under the supervisor, once all listen; the directory they note into. */
async function fakeWorkers(workers: number, extraEnv: Record<string, string>) {
  const lines: string[] = [];
  const log = tempDir('fake-workers');
  const signals = new EventEmitter();
  const served = serveWorkers({
    workers,
    script: FAKE_WORKER,
    execArgv: [],
    env: { ...process.env, QUERY_API_PORT: '0', FAKE_WORKER_LOG: log, ...extraEnv },
    log: (l) => lines.push(l),
    signals,
  });
  await expect
    .poll(() => lines.some((l) => l.startsWith(`${workers} workers listening on`)), { timeout: 30_000 })
    .toBe(true);
  return { served, signals, lines, log };
}

describe('query-api workers', () => {
  it('share a port with reusePort, and each is given connections', async () => {
    const first = await createQueryApi({ port: 0, logLevel: false, reusePort: true }, { store });
    apis.push(first);
    const url = await first.start();
    const port = Number(new URL(url).port);
    const second = await createQueryApi({ port, logLevel: false, reusePort: true }, { store });
    apis.push(second);
    expect(await second.start()).toBe(url);
    const alone = await createQueryApi({ port, logLevel: false }, { store });
    await expect(alone.start()).rejects.toThrow(/EADDRINUSE/);
    await alone.stop();
    // The kernel picks a listener by each connection's address hash: 40 new connections reach both.
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const [a, b] = [await healthzCount(first), await healthzCount(second)];
    expect(a + b).toBe(40);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
  });

  it('the CLI refuses more than one worker on embedded chDB', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      QUERY_API_WORKERS: '2',
      DATA_DIR: tempDir('workers-cli'),
    };
    delete env.CLICKHOUSE_URL;
    const result = await new Promise<{ code: number; err: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'serve'], { env, timeout: 60_000 }, (error, _out, err) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, err }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.err).toContain('QUERY_API_WORKERS > 1 needs CLICKHOUSE_URL');
  });

  it("the supervisor starts workers on the first one's port, passes a signal on and exits with them", async () => {
    const { served, signals, log } = await fakeWorkers(3, { QUERY_API_BOOTSTRAP_KEY_NAME: 'demo' });
    const started = readdirSync(log).map(
      (f) =>
        JSON.parse(readFileSync(join(log, f), 'utf8')) as {
          port: number;
          bootstrap: string | null;
          argv: string[];
        },
    );
    expect(started).toHaveLength(3);
    expect(new Set(started.map((s) => s.port)).size).toBe(1);
    // Only the first worker makes the bootstrap key.
    expect(started.filter((s) => s.bootstrap === 'demo')).toHaveLength(1);
    expect(started.every((s) => s.argv.join(' ') === 'serve --reuse-port')).toBe(true);
    signals.emit('SIGTERM', 'SIGTERM');
    expect(await served).toBe(0);
  });

  it('the supervisor stops the other workers when one dies, and exits 1', async () => {
    const { served, lines, log } = await fakeWorkers(2, {});
    const [victim] = readdirSync(log);
    process.kill(Number(victim?.replace('.json', '')), 'SIGKILL');
    expect(await served).toBe(1);
    expect(lines.some((l) => l.includes('exited on its own'))).toBe(true);
  });
});
