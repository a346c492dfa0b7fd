/**
 * `history-loader` as compose runs it (LOADER_SCHEDULE=on, a holiday file, --metrics-port) against
 * the simulator: the catch-up run at start finishes, the next run is on /metrics and /healthz where
 * the calendar puts it, and SIGTERM stops the service with exit code 0.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate, istDayOf } from '../src/calendar.js';
import { nextRunAt } from '../src/index.js';
import type { ScheduledStatus } from '../src/scheduled-loader.js';
import { readCalendarFile } from '../src/trading-calendar.js';
import { startTestSim, type TestSim } from './support/sim.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const BIN = join(here, '..', 'bin', 'history-loader.mjs');

let sim: TestSim;
let child: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  sim = await startTestSim();
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await sim?.close();
});

describe('history-loader --schedule', () => {
  it('runs at start, shows its next run, stops on SIGTERM with exit 0', async () => {
    const dir = tempDir('history-schedule-cli');
    const today = istDayOf(Date.now());
    const universe = join(dir, 'universe.json');
    writeFileSync(
      universe,
      JSON.stringify({
        instruments: [{ securityId: 2885, segment: 'NSE_EQ', instrument: 'EQUITY' }],
        plan: {
          daily: { from: formatDate(today - 30), windowDays: 365 },
          intraday: { intervals: [60], days: 3, windowDays: 90 },
          optionChain: { enabled: false },
          expiredOptions: { enabled: false },
        },
      }),
    );
    // Today and tomorrow are holidays: the next run must skip them.
    const holidays = join(dir, 'holidays.json');
    writeFileSync(holidays, JSON.stringify({ holidays: [formatDate(today), formatDate(today + 1)] }));
    const port = await freePort();
    child = spawn(process.execPath, [BIN, '--universe', universe, '--metrics-port', String(port)], {
      env: {
        ...process.env,
        SVC_BASE_URL: sim.broker.baseUrl,
        SVC_CLIENT_ID: sim.broker.clientId,
        SVC_ACCESS_TOKEN: sim.accessToken,
        DATA_DIR: dir,
        CLICKHOUSE_URL: '',
        LOADER_SCHEDULE: 'on',
        LOADER_HOLIDAY_FILE: holidays,
        LOADER_RUN_DELAY_S: '600',
        // The machine's own disk may be fuller than the default 10%: this test is not about the guard.
        STORE_MIN_FREE_PERCENT: '1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
    });
    const exit = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    let status: ScheduledStatus | undefined;
    await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!res?.ok) return false;
        status = (await res.json()) as ScheduledStatus;
        return status.lastRun !== undefined && status.nextRunAt !== undefined;
      },
      90_000,
      () => `the first scheduled run to finish (stderr: ${stderr.slice(-2000)})`,
      250,
    );
    expect(status?.lastRun?.state).toBe('done');
    expect(status?.schedule).toBe('idle');
    const expected = nextRunAt(
      readCalendarFile(holidays),
      ['NSE_EQ'],
      status?.lastRun?.finishedAt ?? 0,
      600_000,
    );
    expect(status?.nextRunAt).toBe(expected);
    expect(istDayOf(expected)).toBeGreaterThan(today + 1);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain(`history_loader_next_run_timestamp_seconds ${expected / 1000}`);
    expect(metrics).toMatch(/history_loader_scheduled_runs_total\{state="done"\} 1/);
    expect(metrics).toMatch(/history_loader_store_writes_paused 0/);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    child = undefined;
  }, 120_000);
});
