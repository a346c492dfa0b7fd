/**
 * npm run bench:accept-gate -- [--connections 20000] [--in-flight 200]
 *
 * What a connection past the HTTP servers' caps costs the server's process (service-kit's
 * http-server-limits.ts), in CPU per connection, for a client that opens and is closed
 * `--connections` times from one loopback address (a client process of its own,
 * bench/support/connect-churn.ts), compared in the same run with:
 * - `address_cap`: refused by the cap per client address: reset as accepted, before Node's HTTP
 *   server sees the socket;
 * - `budget_evict`: admitted into HTTP, then pushed out by the next one (the process budget at its
 *   cap, every connection idle): what each connection of an idle flood cost before the address cap;
 * - `admitted`: admitted and kept until the client closes it (an honest client's connection that
 *   sends nothing).
 * The last stdout line is the JSON result. Loopback only; each phase bounded by count and 60 s.
 */
import { fork } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  AddressCap,
  ConnectionBudget,
  createLimitedServer,
  DEFAULT_HTTP_SERVER_LIMITS,
  type HttpServerLimits,
} from '@feedpipe/service-kit';
import type { ChurnJob, ChurnReport } from './support/connect-churn.js';
import { intFlag } from './support/flags.js';

const { values } = parseArgs({
  options: { connections: { type: 'string' }, 'in-flight': { type: 'string' } },
});
const connections = intFlag(values.connections, 20_000, 'connections', 100, 1_000_000);
const inFlight = intFlag(values['in-flight'], 200, 'in-flight', 1, 5_000);
const PHASE_DEADLINE_MS = 60_000;

interface Phase {
  name: 'address_cap' | 'budget_evict' | 'admitted';
  maxConnections: number;
  perAddress: number;
  closeOwn: boolean;
  keptByServer: number;
}

const PHASES: Phase[] = [
  { name: 'address_cap', maxConnections: 1_000_000, perAddress: 1, closeOwn: false, keptByServer: 0 },
  { name: 'budget_evict', maxConnections: 1, perAddress: 1_000_000, closeOwn: false, keptByServer: 1 },
  { name: 'admitted', maxConnections: 1_000_000, perAddress: 1_000_000, closeOwn: true, keptByServer: 0 },
];

async function listen(phase: Phase): Promise<Server> {
  const limits: HttpServerLimits = {
    ...DEFAULT_HTTP_SERVER_LIMITS,
    idleTimeoutMs: 600_000,
    keepAliveTimeoutMs: 600_000,
    maxConnections: phase.maxConnections,
    maxConnectionsPerAddress: phase.perAddress,
  };
  const server = createLimitedServer((_request, response) => response.end('ok'), limits, {
    budget: new ConnectionBudget(phase.maxConnections),
    addressCap: new AddressCap(phase.perAddress),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function runPhase(phase: Phase, index: number) {
  const server = await listen(phase);
  // The address cap of 1 holds one connection first, so every counted one is past it.
  const holder = phase.name === 'address_cap' ? await holdOne(server, index) : undefined;
  const job: ChurnJob = {
    port: (server.address() as AddressInfo).port,
    localAddress: `127.3.0.${index + 1}`,
    count: connections,
    inFlight,
    closeOwn: phase.closeOwn,
    keptByServer: phase.keptByServer,
    deadlineMs: PHASE_DEADLINE_MS,
  };
  const cpuBefore = process.cpuUsage();
  const child = fork(new URL('./support/connect-churn.ts', import.meta.url), [JSON.stringify(job)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const report = await new Promise<ChurnReport>((resolve, reject) => {
    child.once('message', (m) => resolve(m as ChurnReport));
    child.once('exit', (code) => reject(new Error(`the client exited (${code}) without a report`)));
  });
  const cpu = process.cpuUsage(cpuBefore);
  holder?.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return {
    connections: report.done,
    seconds: Math.round(report.seconds * 100) / 100,
    per_second: Math.round(report.done / report.seconds),
    server_cpu_us_per_connection: Math.round(((cpu.user + cpu.system) / Math.max(1, report.done)) * 10) / 10,
  };
}

async function holdOne(server: Server, index: number) {
  const { connect } = await import('node:net');
  const socket = connect({
    port: (server.address() as AddressInfo).port,
    host: '127.0.0.1',
    localAddress: `127.3.0.${index + 1}`,
  });
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

const results: Record<string, unknown> = {};
for (const [i, phase] of PHASES.entries()) results[phase.name] = await runPhase(phase, i);
process.stdout.write(
  `${JSON.stringify({ bench: 'accept-gate', connections, in_flight: inFlight, ...results, machine: 'shared 2-core machine' })}\n`,
);
