/**
 * The clients of `bench:api` in a process of their own: autocannon's connections get their own
 * event loop, so generating load is not charged to the API under test (in one process the load
 * generator's work would sit between the API's callbacks and count as API latency).
 *
 * Protocol over fork()'s IPC channel: the parent sends one `LoadJob`; the child runs the warm-up,
 * answers { type: 'warm' } and waits for { cmd: 'measure' } (so the parent can read the API's
 * counters exactly between the two phases), then answers { type: 'result', result } (or
 * { type: 'error', message }) and exits.
 */
import { createRequire } from 'node:module';
import { WorkloadGenerator, type WorkloadSpec } from './api-workload.js';

export interface LoadJob {
  url: string;
  /** One key per connection (each client is a notebook or dashboard of its own). */
  apiKeys: readonly string[];
  connections: number;
  durationSec: number;
  warmupSec: number;
  spec: WorkloadSpec;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Status codes other than 2xx, by code. */
  statusCodes: Record<string, number>;
  /** The first few answers other than 2xx (path, status, body), to say what went wrong. */
  failures: { path: string; status: number; body: string }[];
}

const MAX_FAILURE_SAMPLES = 5;

interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; max: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  setupClient: (client: { setHeaders(headers: Record<string, string>): void }) => void;
  requests: {
    setupRequest: (req: AutocannonRequest) => AutocannonRequest;
    onResponse: (status: number, body: string, context: { path?: string }) => void;
  }[];
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations; the shape used is declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const failures: LoadResult['failures'] = [];
let lastPath = '';

async function runPhase(job: LoadJob, durationSec: number, generator: WorkloadGenerator) {
  // Each connection (autocannon's client) sends its own key, set once as its headers; a request
  // keeps them (its headers start as the client's).
  let clients = 0;
  const setupClient = (client: { setHeaders(headers: Record<string, string>): void }): void => {
    client.setHeaders({ 'x-api-key': job.apiKeys[clients++ % job.apiKeys.length] as string });
  };
  const setupRequest = (req: AutocannonRequest): AutocannonRequest => {
    const next = generator.next();
    lastPath = next.path;
    return next.body === undefined
      ? { ...req, method: next.method, path: next.path }
      : {
          ...req,
          method: next.method,
          path: next.path,
          body: next.body,
          headers: { ...req.headers, 'content-type': 'application/json' },
        };
  };
  return autocannon({
    url: job.url,
    connections: job.connections,
    duration: durationSec,
    headers: {},
    setupClient,
    requests: [
      {
        setupRequest,
        // Which request failed is not passed back, so the sample names the last one built: with
        // one request in flight per connection that is close, and the body says the rest.
        onResponse: (status, body) => {
          if (status < 300 || failures.length >= MAX_FAILURE_SAMPLES) return;
          failures.push({ path: lastPath, status, body: body.slice(0, 300) });
        },
      },
    ],
  });
}

function measureSignal(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: { cmd?: string }) => {
      if (message.cmd !== 'measure') return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
  });
}

async function run(job: LoadJob): Promise<LoadResult> {
  // Warm-up and measurement draw from different seeds, so the measured requests are not the
  // warm-up's over again.
  if (job.warmupSec > 0) {
    await runPhase(job, job.warmupSec, new WorkloadGenerator({ ...job.spec, seed: job.spec.seed + 1 }));
  }
  const go = measureSignal();
  process.send?.({ type: 'warm' });
  await go;
  const r = await runPhase(job, job.durationSec, new WorkloadGenerator(job.spec));
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) {
    if (!code.startsWith('2')) statusCodes[code] = stat.count;
  }
  return {
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    mean: r.latency.average,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes,
    failures,
  };
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ type: 'result', result }, () => process.exit(0)),
    (error: unknown) =>
      process.send?.({ type: 'error', message: error instanceof Error ? error.message : String(error) }, () =>
        process.exit(1),
      ),
  );
});
