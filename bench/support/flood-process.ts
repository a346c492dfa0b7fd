/**
 * One flood of bench:flood in a process of its own: its descriptors are not the benchmark's (the
 * idle flood takes nearly all of a process's open-file limit) and its event loop does not delay
 * the probes whose latency is measured. Started by fork() with one JSON argument (FloodJob);
 * answers { type: 'started', ... } at once and { type: 'report', report } on { cmd: 'stop' }, then
 * exits.
 */
import { openFileLimit } from '@feedpipe/service-kit';
import { IdleFlood, type IdleFloodOptions, SlowBodies, type SlowBodyTarget } from './flood-connections.js';
import { KeyFlood, type KeyFloodOptions, type KeyFloodTargets } from './flood-keys.js';

export type FloodJob =
  | { kind: 'keys'; targets: KeyFloodTargets; options: KeyFloodOptions }
  | {
      kind: 'idle';
      endpoints: { host: string; port: number }[];
      /** Connections wanted; held below this process's open-file limit (FD_RESERVE kept free). */
      connections: number;
      options: Omit<IdleFloodOptions, 'target'>;
      slowBodies: { targets: SlowBodyTarget[]; perRoute: number; everyMs: number };
    };

/** Descriptors this process keeps for itself (IPC, stdio, the slow bodies, the runtime's own). */
const FD_RESERVE = 300;

const job = JSON.parse(process.argv[2] ?? '{}') as FloodJob;
const send = (message: unknown) => process.send?.(message);
/** The last word: the report, then the process ends (its sockets and timers are already closed). */
const finish = (report: unknown) => process.send?.({ type: 'report', report }, () => process.exit(0));

if (job.kind === 'keys') {
  const flood = new KeyFlood(job.targets, job.options);
  flood.start();
  send({ type: 'started' });
  process.on('message', (m: { cmd?: string }) => {
    if (m.cmd !== 'stop') return;
    finish(flood.stop());
  });
} else {
  const fileLimit = openFileLimit() ?? 1_024;
  const target = Math.max(0, Math.min(job.connections, fileLimit - FD_RESERVE));
  const idle = new IdleFlood(job.endpoints, { ...job.options, target });
  const slow = new SlowBodies(job.slowBodies.targets, job.slowBodies.perRoute, job.slowBodies.everyMs);
  idle.start();
  slow.start();
  send({ type: 'started', fileLimit, target });
  process.on('message', (m: { cmd?: string }) => {
    if (m.cmd !== 'stop') return;
    finish({ idle: { file_limit: fileLimit, ...idle.stop() }, slow_bodies: slow.stop() });
  });
}
