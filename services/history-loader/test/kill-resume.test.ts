/**
 * Kill the loader (SIGKILL, at a random moment) and start it again: the final tables equal those
 * of an uninterrupted run. Each loader is a child process owning its chDB directory; the tables are
 * read by another child after the loaders exit. Both runs load from one simulator with its limits on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fingerprint } from './support/fingerprints.js';
import { TEST_UNIVERSE, testPlan } from './support/plan.js';
import { startTestSim, type TestSim } from './support/sim.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const BIN = join(here, '..', 'bin', 'history-loader.mjs');
const READER = join(here, 'support', 'read-fingerprints.ts');
const TSX = join(here, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

let sim: TestSim;
let universeFile: string;
const children = new Set<ChildProcess>();

function loaderChild(dataDir: string): { child: ChildProcess; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, '--universe', universeFile], {
    env: {
      ...process.env,
      SVC_BASE_URL: sim.broker.baseUrl,
      SVC_CLIENT_ID: sim.broker.clientId,
      SVC_ACCESS_TOKEN: sim.accessToken,
      DATA_DIR: dataDir,
      CLICKHOUSE_URL: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      if (code !== 0 && code !== null) process.stderr.write(stderr);
      resolve(code);
    }),
  );
  return { child, exit };
}

async function read(dataDir: string): Promise<{ prints: Record<string, Fingerprint>; snapshots: number }> {
  const child = spawn(process.execPath, [TSX, READER, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  children.delete(child);
  expect(code).toBe(0);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}');
}

beforeAll(async () => {
  sim = await startTestSim();
  const dir = tempDir('history-kill');
  universeFile = join(dir, 'universe.json');
  writeFileSync(universeFile, JSON.stringify({ instruments: TEST_UNIVERSE, plan: testPlan() }));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sim?.close();
});

describe('kill and resume', () => {
  it('ends with the same tables as an uninterrupted run', async () => {
    const referenceDir = tempDir('history-ref');
    const t0 = Date.now();
    expect(await loaderChild(referenceDir).exit).toBe(0);
    const fullMs = Date.now() - t0;

    const killedDir = tempDir('history-killed');
    // Somewhere between the first requests and the end of the run.
    const killAfterMs = Math.round(2_500 + Math.random() * Math.max(500, fullMs - 4_000));
    process.stderr.write(`kill-resume: uninterrupted run ${fullMs} ms, SIGKILL after ${killAfterMs} ms\n`);
    const first = loaderChild(killedDir);
    const timer = setTimeout(() => first.child.kill('SIGKILL'), killAfterMs);
    const firstCode = await first.exit;
    clearTimeout(timer);
    expect(await loaderChild(killedDir).exit).toBe(0);

    const reference = await read(referenceDir);
    const resumed = await read(killedDir);
    process.stderr.write(`kill-resume: first run exit ${firstCode}\n`);
    for (const table of [
      HISTORY_TABLES.candlesDaily.name,
      HISTORY_TABLES.candlesIntraday.name,
      HISTORY_TABLES.expiredOptions.name,
      HISTORY_TABLES.expiryLists.name,
      HISTORY_TABLES.loadUnits.name,
    ]) {
      expect(resumed.prints[table]?.rows, table).toBeGreaterThan(0);
      expect(resumed.prints[table]?.rows, table).toBe(reference.prints[table]?.rows);
      expect(resumed.prints[table]?.checksum, table).toBe(reference.prints[table]?.checksum);
    }
    // Chain prices are live; the snapshots taken must be the same ones.
    expect(resumed.snapshots).toBe(reference.snapshots);
    expect(resumed.snapshots).toBeGreaterThan(0);
  });
});
