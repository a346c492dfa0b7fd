/**
 * `npm run bench:loader`: does the history loader keep the Data API rate saturated (5 requests per
 * second) without a single 429? The REST simulator runs with its limits on in a child process (its
 * own core); the loader runs here against embedded chDB in a fresh directory.
 *
 * Workloads (--workload):
 *   chains   (default) expiry lists and option-chain snapshots of every NSE stock and index of the
 *            simulator's universe (3 nearest expiries): many cheap requests, the rate the limiter allows.
 *   candles  intraday 5-minute candles of NSE stocks in 90-day windows: heavier answers. The client's
 *            limiter holds a slot until 1 s after each answer, so the rate is 5 / (1 s + latency).
 * Flags: --seconds <n> (run length, default 60, min 5), --workload chains|candles, --concurrency <n>.
 * Progress goes to stderr; the last stdout line is
 * {"bench":"loader","requests":...,"seconds":...,"rate":...,"limit":5,"throttled":0,...}.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MarketModel, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { createHistoryLoader, type UniverseRow } from '@feedpipe/history-loader';
import { createStore } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { serveRestSim, startRestSim } from './support/rest-sim-child.js';

const SEED = 1;

function flag(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new Error(`--${name} must be a number in [${min}, ${max}]`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      role: { type: 'string' },
      seconds: { type: 'string' },
      workload: { type: 'string' },
      concurrency: { type: 'string' },
    },
  });
  if (values.role === 'sim') return serveRestSim(SEED);
  const seconds = flag(values.seconds, 60, 'seconds', 5, 3600);
  const concurrency = flag(values.concurrency, 8, 'concurrency', 1, 64);
  const workload = values.workload ?? 'chains';
  if (workload !== 'chains' && workload !== 'candles')
    throw new Error('--workload must be chains or candles');
  const account = SIM_TEST_ACCOUNTS[0];
  if (account === undefined) throw new Error('no simulator test account');

  const { child, baseUrl, token } = await startRestSim(fileURLToPath(import.meta.url));
  const universe = new MarketModel({ seed: SEED, instruments: 10 }).universe;
  const rows: UniverseRow[] =
    workload === 'chains'
      ? universe
          .filter((i) => i.exchangeSegment === 'IDX_I' || i.exchangeSegment === 'NSE_EQ')
          .map((i) => ({
            securityId: i.securityId,
            segment: i.exchangeSegment,
            instrument: i.instrumentType,
            optionChain: true,
          }))
      : universe
          .filter((i) => i.exchangeSegment === 'NSE_EQ')
          .map((i) => ({
            securityId: i.securityId,
            segment: i.exchangeSegment,
            instrument: i.instrumentType,
          }));
  const plan =
    workload === 'chains'
      ? {
          daily: { enabled: false },
          intraday: { intervals: [] },
          optionChain: { expiries: 3 },
          expiredOptions: { enabled: false },
        }
      : {
          daily: { enabled: false },
          intraday: { intervals: [5 as const], days: 360 },
          expiredOptions: { enabled: false },
        };

  const dataDir = tempDir('bench-loader');
  const store = createStore({ dataDir });
  let first: number | undefined;
  let last = 0;
  const timedFetch = async (url: string, init: RequestInit): Promise<Response> => {
    first ??= Date.now();
    const response = await fetch(url, init);
    last = Date.now();
    return response;
  };
  const loader = createHistoryLoader(
    {
      broker: { baseUrl, clientId: account.clientId },
      universe: rows,
      plan,
      concurrency,
      maxSeconds: seconds + 1.1,
    },
    { clickhouse: store.internal, accessToken: token, fetch: timedFetch },
  );
  process.stderr.write(
    `bench:loader ${workload}: ${rows.length} instruments, ${seconds} s, concurrency ${concurrency}\n`,
  );
  const progress = setInterval(() => {
    const s = loader.status();
    process.stderr.write(
      `  ${s.requests} requests, ${s.rate.toFixed(2)} req/s, 429: ${s.throttled}, rows ${s.rowsWritten}\n`,
    );
  }, 5_000);
  const result = await loader.run();
  clearInterval(progress);
  await store.close();
  child.disconnect();
  const measured = first === undefined ? 0 : (last - first) / 1000;
  const rate = measured > 0 ? result.requests / measured : 0;
  process.stderr.write(
    `done: state ${result.state}, ${result.unitsFinished} units, ${result.rowsWritten} rows${result.error ? `, error ${result.error}` : ''}\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      bench: 'loader',
      workload,
      requests: result.requests,
      seconds: Math.round(measured * 100) / 100,
      rate: Math.round(rate * 1000) / 1000,
      limit: 5,
      ratio: Math.round((rate / 5) * 1000) / 1000,
      throttled: result.throttled,
      units: result.unitsFinished,
      rows: result.rowsWritten,
      state: result.state,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:loader failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
