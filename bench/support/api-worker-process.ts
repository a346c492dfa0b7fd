/**
 * One query API worker of `bench:api --workers N`: a whole API instance (its own store, hot tier
 * and event loop) listening with SO_REUSEPORT on the port the workers share, as
 * `QUERY_API_WORKERS` runs them. On embedded chDB each worker opens a copy of the benchmark's
 * data directory (a data directory belongs to one process; a server is shared).
 *
 * Protocol over fork()'s IPC channel: the parent sends one `WorkerJob`; the worker answers
 * { type: 'listening', url }, then { type: 'ready', hotTier } once its tier is loaded; each
 * { cmd: 'snapshot' } is answered with { type: 'snapshot', metrics, cpuMs } (its /metrics text and
 * its CPU so far, read here because a scrape over the shared port reaches any worker);
 * { cmd: 'stop' } stops it.
 */
import { createQueryApi } from '@feedpipe/query-api';
import { createStore, type StoreConfig } from '@feedpipe/store';
import { type BenchApiOptions, benchApiConfig, hotTierReady, jsBytes } from './api-instance.js';

export interface WorkerJob {
  api: BenchApiOptions;
  store: StoreConfig;
  kafkaBrokers: string[];
  instrumentDays: number;
}

export interface WorkerSnapshot {
  type: 'snapshot';
  metrics: string;
  cpuMs: number;
}

const send = (message: object): void => {
  process.send?.(message);
};

process.once('message', (job: WorkerJob) => {
  run(job).catch((error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  });
});

async function run(job: WorkerJob): Promise<void> {
  const store = createStore(job.store);
  const api = await createQueryApi(benchApiConfig(job.api), { store, kafkaBrokers: job.kafkaBrokers });
  const jsBefore = jsBytes();
  const url = await api.start();
  send({ type: 'listening', url });
  const hotTier =
    job.api.topics === undefined ? undefined : await hotTierReady(api, jsBefore, job.instrumentDays);
  send({ type: 'ready', hotTier });
  process.on('message', (message: { cmd?: string }) => {
    if (message.cmd === 'snapshot') {
      api.app.inject({ method: 'GET', url: '/metrics' }).then(
        (reply) => {
          const cpu = process.cpuUsage();
          const snapshot: WorkerSnapshot = {
            type: 'snapshot',
            metrics: reply.body,
            cpuMs: (cpu.user + cpu.system) / 1000,
          };
          send(snapshot);
        },
        (error: unknown) => send({ type: 'error', message: String(error) }),
      );
    } else if (message.cmd === 'stop') {
      void api
        .stop()
        .then(() => store.close())
        .finally(() => process.exit(0));
    }
  });
}
