/**
 * Issue #37, under `npm start`: the trading gateway runs in a supervised process of its own, so a
 * connection flood at the query API's port is handled on another event loop than orders. The
 * mechanisms, on one run of npm start (no timing is asserted; every wait has a deadline):
 * - the banner's gateway URL and trade key are served by a child process of npm start, not by
 *   npm start itself, and its /metrics carries the gateway's and its own process's series;
 * - killed (SIGKILL), the gateway is started again at the same URL, with the same keys working;
 * - frozen (SIGSTOP), it fails its health checks, is killed and started again;
 * - on SIGINT npm start stops the gateway before the parts it borrows (store, token, Kafka), and
 *   leaves no gateway process behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningStart, startNpmStart } from './npm-start/running-start.js';

const RESTART_DEADLINE_MS = 120_000;

let start: RunningStart | undefined;

beforeAll(async () => {
  start = await startNpmStart();
}, 600_000);

afterAll(async () => {
  await start?.stop();
}, 90_000);

/** The child processes of `pid` whose command line names `entry` (from /proc). */
function childrenRunning(pid: number, entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent pid is the 2nd field after the command name, which is in parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(entry)) found.push(Number(name));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

const gatewayPids = (s: RunningStart) => childrenRunning(s.pid, 'gateway-child');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function ordersStatus(s: RunningStart): Promise<number> {
  try {
    const response = await fetch(`${s.gatewayUrl}/v1/orders`, {
      headers: { 'x-api-key': s.tradeKey },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Sends `signal` to the one gateway process running; its pid. */
function signalGateway(s: RunningStart, signal: NodeJS.Signals): number {
  const [pid] = gatewayPids(s);
  if (pid === undefined) throw new Error(`no gateway process; log:\n${s.log()}`);
  process.kill(pid, signal);
  return pid;
}

/** Until one gateway process other than `previous` runs and answers the trade key's orders. */
async function untilReplaced(s: RunningStart, previous: number): Promise<void> {
  await waitFor(
    async () => {
      const now = gatewayPids(s);
      return now.length === 1 && now[0] !== previous && (await ordersStatus(s)) === 200;
    },
    RESTART_DEADLINE_MS,
    () => `a gateway process other than ${previous} answering orders; log:\n${s.log()}`,
    500,
  );
}

describe('npm start runs the trading gateway in a supervised process of its own', () => {
  it("serves the banner's gateway URL and trade key from a child process, with that process's metrics", async () => {
    const running = start as RunningStart;
    const pids = gatewayPids(running);
    expect(pids, running.log()).toHaveLength(1);
    expect(pids[0]).not.toBe(running.pid);
    expect(await ordersStatus(running)).toBe(200);
    const metrics = await (await fetch(`${running.gatewayUrl}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE trading_gateway_http_requests_total counter$/m);
    expect(metrics).toMatch(/^# TYPE trading_gateway_http_connections_address_refused_total counter$/m);
    // The gateway's own event loop, apart from npm start's (the pipeline's /metrics has that one).
    expect(metrics).toMatch(/^feedpipe_nodejs_eventloop_lag_max_seconds /m);
  });

  it(
    'starts the gateway again at the same URL after it is killed, its keys still valid',
    async () => {
      const running = start as RunningStart;
      await untilReplaced(running, signalGateway(running, 'SIGKILL'));
      expect(running.log()).toMatch(/trading-gateway exited \(SIGKILL\); starting it again/);
    },
    RESTART_DEADLINE_MS + 10_000,
  );

  it(
    'kills a gateway that stops answering its health checks (frozen: SIGSTOP) and starts it again',
    async () => {
      const running = start as RunningStart;
      const frozen = signalGateway(running, 'SIGSTOP');
      try {
        await untilReplaced(running, frozen);
      } finally {
        if (alive(frozen)) process.kill(frozen, 'SIGKILL');
      }
      expect(running.log()).toMatch(/trading-gateway failed \d+ health checks in a row; killing it/);
    },
    RESTART_DEADLINE_MS + 10_000,
  );

  it('is stopped before the store, the token and Kafka on SIGINT, and leaves no process behind', async () => {
    const running = start as RunningStart;
    const [gateway] = gatewayPids(running);
    expect(gateway).toBeDefined();
    await running.stop();
    start = undefined;
    const log = running.log();
    // Where npm start's stop reached `part`: stopped, or given up on after its time (a loaded
    // machine's Kafka can take longer than its 2.5 s); either way, after the parts before it.
    const stoppedAt = (part: string) =>
      log.search(new RegExp(`\\n {2}(stopped ${part} in |${part} did not stop within|stop ${part}: )`));
    expect(stoppedAt('trading-gateway'), log).toBeGreaterThanOrEqual(0);
    for (const later of ['store', 'credentials', 'kafka']) {
      expect(stoppedAt(later), `${later}\n${log}`).toBeGreaterThan(stoppedAt('trading-gateway'));
    }
    expect(alive(gateway as number)).toBe(false);
  }, 90_000);
});
