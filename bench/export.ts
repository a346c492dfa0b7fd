/**
 * `npm run bench:export`: a whole market's day as one file, the cross-section of the query API.
 *
 * Generates `--ticks` ticks for `--instruments` instruments over one trading day inside ClickHouse
 * (bench/support/api-dataset.ts: 03:45 to 10:00 UTC, volume cumulative), starts the API on
 * loopback, and asks once (after one warm-up request of a few instruments) for every instrument's
 * 1-minute bars of that day as one Parquet file (`POST /v1/bars`), read to its end by a client
 * that keeps only the byte count. Reports the time to the last byte, the file's size and rows, and
 * the API process's RSS: before, and its peak while answering (sampled every 20 ms), and the same of
 * the process tree (embedded chDB runs its engine in a child process, whose memory is only there).
 *
 * `cpu_seconds` is the CPU this process and its children (embedded chDB's engine process) spent on
 * that request: the figure to compare on a machine shared with other work, where `seconds` also
 * counts the time spent waiting for a core.
 *
 * The last stdout line: {"bench":"export","instruments":...,"seconds":...,"cpu_seconds":...,
 * "bytes":...,"rows":...,"rss_before_mb":...,"rss_peak_mb":...,"tree_rss_before_mb":...,
 * "tree_rss_peak_mb":...}.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createQueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations } from '@feedpipe/store';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { type DatasetSpec, insertTicks, optimizeBenchTables } from './support/api-dataset.js';
import { intFlag } from './support/flags.js';
import { treeCpuSeconds, treeRssBytes } from './support/process-tree.js';

const { values } = parseArgs({
  options: { ticks: { type: 'string' }, instruments: { type: 'string' }, format: { type: 'string' } },
});
const instruments = intFlag(values.instruments, 5_000, 'instruments', 1, 100_000);
const dataset: DatasetSpec = {
  ticks: intFlag(values.ticks, instruments * 2_000, 'ticks', 1_000, 200_000_000),
  instruments,
  days: 1,
  firstId: 1_000_001,
  firstDay: '2024-03-04',
};
const FROM = '2024-03-04T03:45:00Z';
const TO = '2024-03-04T10:00:00Z';
const log = (message: string): void => {
  process.stderr.write(`[bench:export] ${message}\n`);
};
const mb = (bytes: number) => Math.round(bytes / 1024 ** 2);

const dataDir = join(tmpdir(), `feedpipe-bench-export-${process.pid}`);
// The dataset is dated 2024, past the raw feed's 90-day TTL: TTL deletes are held off so it stays whole.
const store = createStore({ dataDir, ttlDeletes: 'paused' });
try {
  await runMigrations(store.internal);
  let t = performance.now();
  await insertTicks(store.internal, dataset);
  await optimizeBenchTables(store.internal);
  log(
    `inserted and merged ${dataset.ticks} ticks of ${instruments} instruments in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const api = await createQueryApi({ port: 0, logLevel: false, cache: { maxEntries: 0 } }, { store });
  const key = (await api.keys.create('bench-export', ['read'])).key;
  const url = await api.start();
  try {
    const ask = async (body: Record<string, unknown>): Promise<{ bytes: number; file: Buffer[] }> => {
      const response = await fetch(`${url}/v1/bars`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ from: FROM, to: TO, interval: '1m', format: 'parquet', ...body }),
      });
      if (!response.ok || response.body === null)
        throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      const file: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of response.body) {
        bytes += chunk.byteLength;
        file.push(Buffer.from(chunk));
      }
      return { bytes, file };
    };
    await ask({ ids: [1_000_001, 1_000_002, 1_000_003] });
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const treeBefore = treeRssBytes(process.pid);
    let peak = rssBefore;
    let treePeak = treeBefore;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss);
      treePeak = Math.max(treePeak, treeRssBytes(process.pid));
    };
    const sampler = setInterval(sample, 20);
    const cpuBefore = treeCpuSeconds(process.pid, []);
    t = performance.now();
    const { bytes, file } = await ask({});
    const seconds = (performance.now() - t) / 1000;
    const cpuSeconds = treeCpuSeconds(process.pid, []) - cpuBefore;
    clearInterval(sampler);
    sample();
    const rows = tableFromIPC(readParquet(new Uint8Array(Buffer.concat(file))).intoIPCStream()).numRows;
    log(`${rows} bars, ${mb(bytes)} MB of Parquet in ${seconds.toFixed(2)} s`);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'export',
        instruments,
        ticks: dataset.ticks,
        interval: '1m',
        format: 'parquet',
        seconds: Math.round(seconds * 1000) / 1000,
        cpu_seconds: Math.round(cpuSeconds * 100) / 100,
        bytes,
        rows,
        rss_before_mb: mb(rssBefore),
        rss_peak_mb: mb(peak),
        tree_rss_before_mb: mb(treeBefore),
        tree_rss_peak_mb: mb(treePeak),
      })}\n`,
    );
  } finally {
    await api.stop();
  }
} catch (error) {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
