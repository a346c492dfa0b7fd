/**
 * The REST simulator (limits on) in a child process of a benchmark, so its event loop and its core
 * are not the measured process's: the benchmark forks its own script with `--role sim`, which calls
 * `serveRestSim`; `startRestSim` forks it and waits for its URL and the test account's web token
 * (web tokens are minted per process, so the child hands over its own). `quoteArrivals` asks the
 * child when each quote request arrived, as its rate limits counted it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { createRestServer, MarketModel, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';

type SimMessage = { kind: 'ready'; baseUrl: string; token: string };

/** A quote request as the simulator's rate limits counted it. */
export interface QuoteArrival {
  at: number;
  allowed: boolean;
  /** The simulator's garbage collection in the 50 ms before the stamp (which it may have delayed). */
  gcBeforeMs: number;
}

/** How far before an arrival's stamp the simulator's garbage collection is looked for. */
const GC_LOOKBACK_MS = 50;

type ArrivalsMessage = { kind: 'arrivals'; arrivals: QuoteArrival[] };

/** Quote arrivals kept by the child: an hour at the category's 1 a second, with room. */
const MAX_ARRIVALS = 10_000;

/** In the child: serves until the parent disconnects. */
export async function serveRestSim(seed: number): Promise<void> {
  const arrivals: QuoteArrival[] = [];
  const gcs: { start: number; end: number }[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const start = performance.timeOrigin + e.startTime;
      gcs.push({ start, end: start + e.duration });
    }
    if (gcs.length > 100_000) gcs.splice(0, gcs.length - 100_000);
  }).observe({ entryTypes: ['gc'] });
  const server = await createRestServer({
    model: new MarketModel({ seed, instruments: 10 }),
    onRateDecision: (d) => {
      if (d.category === 'quote' && arrivals.length < MAX_ARRIVALS) {
        arrivals.push({ at: d.arrivedAt, allowed: d.allowed, gcBeforeMs: 0 });
      }
    },
  });
  process.on('message', (m: { kind?: string }) => {
    if (m.kind !== 'arrivals') return;
    for (const a of arrivals) {
      const from = a.at - GC_LOOKBACK_MS;
      a.gcBeforeMs = gcs.reduce(
        (sum, gc) => sum + Math.max(0, Math.min(gc.end, a.at) - Math.max(gc.start, from)),
        0,
      );
    }
    process.send?.({ kind: 'arrivals', arrivals } satisfies ArrivalsMessage);
  });
  process.send?.({
    kind: 'ready',
    baseUrl: server.baseUrl,
    token: SIM_TEST_ACCOUNTS[0]?.webToken ?? '',
  } satisfies SimMessage);
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}

/** In the benchmark: forks `script --role sim`; `child.disconnect()` stops it. */
export async function startRestSim(
  script: string,
): Promise<{ child: ChildProcess; baseUrl: string; token: string }> {
  const child = fork(script, ['--role', 'sim'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { baseUrl, token } = await new Promise<SimMessage>((resolve, reject) => {
    child.once('message', (m: SimMessage) => resolve(m));
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { child, baseUrl, token };
}

/** In the benchmark: when each quote request reached the child's rate limits, in arrival order. */
export function quoteArrivals(child: ChildProcess): Promise<QuoteArrival[]> {
  return new Promise((resolve) => {
    const onMessage = (m: ArrivalsMessage | SimMessage): void => {
      if (m.kind !== 'arrivals') return;
      child.off('message', onMessage);
      resolve(m.arrivals);
    };
    child.on('message', onMessage);
    child.send({ kind: 'arrivals' });
  });
}
