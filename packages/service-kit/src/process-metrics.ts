/**
 * The Node process's own metrics (resident memory, heap, event-loop lag, GC pauses, handles) on a
 * registry, through prom-client's default collectors, under one name in every process
 * (`feedpipe_process_resident_memory_bytes`, `feedpipe_nodejs_heap_size_used_bytes`, ...): a
 * dashboard panel or an alert then reads them the same way whether one `npm start` process runs the
 * whole pipeline or each service runs alone (compose), and tells the processes apart by the scrape's
 * `job` and `instance` labels, as it does the token metrics (`feedpipe_token_*`). A process
 * registers them once: a CLI for its one service, `npm start` once for everything it runs;
 * registering twice on one registry is refused by prom-client.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

/** The prefix of the process metrics, the same in every process (see above). */
export const PROCESS_METRICS_PREFIX = 'feedpipe_';

export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: PROCESS_METRICS_PREFIX });
}
