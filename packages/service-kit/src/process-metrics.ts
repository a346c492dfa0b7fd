/**
 * The Node process's own metrics (resident memory, heap, event-loop lag, GC pauses, handles) on a
 * registry, through prom-client's default collectors, under the service's prefix
 * (`ingestor_process_resident_memory_bytes`, ...). A process registers them once: a CLI for its one
 * service, `npm start` once for the whole pipeline it runs (prefix `feedpipe_`); registering twice
 * on one registry is refused by prom-client.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

const PREFIX = /^[a-z][a-z0-9_]*_$/;

export function registerProcessMetrics(registry: Registry, prefix: string): void {
  if (!PREFIX.test(prefix)) throw new Error(`process metrics prefix "${prefix}" must match ${PREFIX.source}`);
  collectDefaultMetrics({ register: registry, prefix });
}
