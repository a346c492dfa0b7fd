/**
 * `npm start` as a person runs it, for tests of what it offers once it is up: its own local Kafka
 * broker and embedded chDB in a fresh data directory, every HTTP port chosen free (0), the history
 * load off and a small demo universe, so it comes up in well under a minute. The banner (stdout)
 * says where everything is; stop() sends SIGINT and waits (bounded) for the process to end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';

const ROOT = join(import.meta.dirname, '..', '..');
const BANNER_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

export interface RunningStart {
  /** The banner's text, as printed. */
  banner: string;
  brokers: string[];
  apiUrl: string;
  readKey: string;
  /** What the banner prints after `JDBC` (issue #33), if it prints one. */
  jdbcUrl: string | undefined;
  /** Every `/metrics` endpoint the banner's metrics line names (pipeline, API, gateway, Kafka). */
  metricsUrls: string[];
  /** The ingestor's subscription route and the ops key of this start (issue #33 item 6). */
  subscriptions: { url: string; key: string };
  gatewayUrl: string;
  tradeKey: string;
  /** The pipeline's ops endpoint (`/metrics`, `/healthz`, `/readyz`). */
  opsUrl: string;
  /** The process id of `npm start` (its descriptors, its CPU). */
  pid: number;
  /** The last 20,000 characters of its log (stderr) so far. */
  log(): string;
  stop(): Promise<void>;
}

function field(banner: string, pattern: RegExp, what: string): string {
  const match = pattern.exec(banner);
  if (!match?.[1]) throw new Error(`npm start's banner has no ${what}:\n${banner}`);
  return match[1];
}

export async function startNpmStart(extraEnv: Record<string, string> = {}): Promise<RunningStart> {
  const dataDir = tempDir('npm-start');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KAFKA_BROKERS: '',
      DATA_DIR: dataDir,
      QUERY_API_PORT: '0',
      QUERY_API_CLICKHOUSE_PORT: '0',
      TRADING_GATEWAY_PORT: '0',
      METRICS_PORT: '0',
      HISTORY_LOAD: 'off',
      DEMO_INSTRUMENTS: '20',
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '262144',
      ...extraEnv,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
  };
  // The banner is complete once its metrics line (its last line but the flow log) is out.
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (/\n {2}metrics .*\n/.test(stdout)) resolve(true);
      };
      child.stdout?.on('data', check);
      check();
    }),
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), BANNER_TIMEOUT_MS).unref()),
  ]);
  if (!ready) {
    await stop();
    throw new Error(`npm start printed no banner:\n${stdout}\n--- stderr ---\n${stderr}`);
  }
  const banner = stdout;
  return {
    banner,
    brokers: field(banner, /\n {2}Kafka +(\S+)/, 'Kafka line').split(','),
    apiUrl: field(banner, /\n {2}query API +(\S+)/, 'query API line'),
    readKey: field(banner, /\n {4}query API read +(\S+)/, 'read key'),
    jdbcUrl: /\n {2}JDBC +(\S+)/.exec(banner)?.[1],
    metricsUrls: [
      ...field(banner, /\n {2}metrics +(.*)\n/, 'metrics line').matchAll(/(http:\/\/\S+\/metrics)\b/g),
    ].map((m) => m[1] as string),
    subscriptions: {
      url: field(
        banner,
        /\n {4}ingestor ops .*\(add or remove instruments while running: (\S+)\)/,
        'subscription route',
      ),
      key: field(banner, /\n {4}ingestor ops +(\S+)/, 'ops key'),
    },
    gatewayUrl: field(banner, /\n {2}gateway +(\S+)/, 'gateway line'),
    tradeKey: field(banner, /\n {4}gateway trade +(\S+)/, 'trade key'),
    opsUrl: field(banner, /\n {2}metrics +pipeline (\S+)\/metrics/, 'pipeline metrics'),
    pid: child.pid as number,
    log: () => stderr,
    stop,
  };
}
