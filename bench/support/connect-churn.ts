/**
 * The client of bench:accept-gate, in a process of its own so that its CPU is not counted as the
 * server's: opens `count` TCP connections to a loopback port from one loopback address, at most
 * `inFlight` at a time. A connection is done once the server has closed it (reset at accept, or
 * pushed out by a newer one) or, where the server keeps connections, once this side has closed it
 * right after connecting. The server may keep `keptByServer` of them to the end; those are closed
 * here when the rest are done. Bounded by `count` and by `deadlineMs`; the report goes over IPC.
 */
import { connect, type Socket } from 'node:net';

export interface ChurnJob {
  port: number;
  localAddress: string;
  count: number;
  inFlight: number;
  /** Close each connection from this side once it is open (the server keeps them all). */
  closeOwn: boolean;
  keptByServer: number;
  deadlineMs: number;
}

export interface ChurnReport {
  done: number;
  seconds: number;
}

const job = JSON.parse(process.argv[2] as string) as ChurnJob;
const started = performance.now();
const open = new Set<Socket>();
let opened = 0;
let done = 0;
let finished = false;

function finish(): void {
  if (finished) return;
  finished = true;
  for (const socket of open) socket.destroy();
  const report: ChurnReport = { done, seconds: (performance.now() - started) / 1000 };
  process.send?.(report, () => process.exit(0));
}

function openOne(): void {
  opened += 1;
  const socket = connect({ port: job.port, host: '127.0.0.1', localAddress: job.localAddress });
  open.add(socket);
  // A reset at accept can reach this side before or after its connect completes: both are a close.
  socket.on('error', () => undefined);
  // A reset, not a close: a close from this side would leave its port in TIME_WAIT, and 20,000
  // of them from one address would use up the ephemeral ports.
  if (job.closeOwn) socket.once('connect', () => socket.resetAndDestroy());
  socket.once('close', () => {
    open.delete(socket);
    done += 1;
    step();
  });
}

function step(): void {
  if (done >= job.count - job.keptByServer || performance.now() - started > job.deadlineMs) {
    finish();
    return;
  }
  while (open.size < job.inFlight && opened < job.count) openOne();
}

setTimeout(finish, job.deadlineMs).unref();
step();
