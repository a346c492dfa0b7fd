/**
 * The compose deployment keeps working across token renewals: the environment infra/docker-compose.yml
 * computes for the feed ingestor, the history loader and the trading gateway (from infra/.env.example
 * plus what an operator sets for a renewing deployment: SVC_TOKEN_SOURCE=totp, client id, PIN, TOTP
 * secret and the service's URLs), given to the three CLIs, as compose runs them, against the
 * simulator with 60-second tokens and one token per account (a new token ends the previous one, as
 * the service does). Over three renewals the three processes share one renewal through the one
 * directory compose mounts at SVC_TOKEN_SHARE_DIR: after each, the ingestor's 5 connections are open
 * and receiving, the gateway answers an account call and the loader (a scheduled service, as
 * compose runs it) is up; its run at start finished, and started again after the last renewal it
 * takes the current token from the directory and its run finishes; no secret or token appears in
 * their output.
 *
 * What differs from a container, and only that: paths (the compose secrets are files in a scratch
 * directory, the token-share volume is a scratch directory, /app is this repository), and what
 * points at the other containers or this machine (Kafka: the test run's broker; ClickHouse:
 * embedded chDB per process, CLICKHOUSE_URL empty; metrics and the gateway on free loopback ports).
 * Every credentials variable is passed as compose computes it. Bounded: about 3 minutes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '@feedpipe/broker-sim';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CREDENTIALS_ENV } from '../packages/credentials/src/config.js';
import {
  type ComposeDocument,
  composeWith,
  containerEnvironment,
  ENV_EXAMPLE_FILE,
  REPO_ROOT,
  readEnvFile,
  secretMounts,
  volumeMounts,
} from './support/compose-env.js';
import { freePort } from './support/prometheus-stack.js';

const brokers = inject('kafkaBrokers');
const TOKEN_LIFETIME_S = 60;
const RENEWALS = 3;
/**
 * Three renewals 45 s apart (three quarters of 60 s) after the first token: 135 s, and start-up;
 * the rest is room for a machine shared with other test runs.
 */
const WINDOW_MS = 200_000;
const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
/** The ingestor's ops key an operator sets in infra/.env (a compose secret in the container). */
const OPS_KEY = createHash('sha256').update(`ops-${process.pid}-${Date.now()}`).digest('hex').slice(0, 40);

const scratch = tempDir('compose-renewal');
const shareDir = join(scratch, 'token-share');
const children = new Set<ChildProcess>();
let sim: Simulator;
let resolved: ComposeDocument;

interface Child {
  process: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

/** What an operator puts in infra/.env for a renewing deployment, on top of .env.example. */
function operatorEnv(): Map<string, string> {
  const env = readEnvFile(ENV_EXAMPLE_FILE);
  env.set('SVC_TOKEN_SOURCE', 'totp');
  env.set('SVC_CLIENT_ID', ACCOUNT.clientId);
  env.set('SVC_PIN', ACCOUNT.pin);
  env.set('SVC_TOTP_SECRET', ACCOUNT.totpSecret);
  env.set('SVC_FEED_URL', sim.feed.url);
  env.set('SVC_BASE_URL', sim.rest?.baseUrl ?? '');
  env.set('SVC_AUTH_URL', sim.rest?.authUrl ?? '');
  env.set('INGESTOR_OPS_KEY', OPS_KEY);
  return env;
}

/** The repository where the image has it (/app); other absolute paths as they are. */
const onThisMachine = (value: string): string => value.replace(/^\/app\//, `${REPO_ROOT}/`);

/**
 * The container's environment with its paths on this machine and its neighbours on loopback.
 * `local` holds what replaces a value that names another container or a container port.
 */
function processEnv(
  service: string,
  operator: Map<string, string>,
  local: Record<string, string>,
): Record<string, string> {
  const vars = containerEnvironment(resolved, service);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars)) env[name] = onThisMachine(value);
  // Each compose secret: the file compose would create from the variable of the same name.
  for (const [secret, target] of secretMounts(resolved, service)) {
    const variable = resolved.secrets?.[secret]?.environment ?? '';
    const file = join(scratch, 'secrets', secret);
    writeFileSync(file, operator.get(variable) ?? '', { mode: 0o600 });
    for (const [name, value] of Object.entries(env)) if (value === target) env[name] = file;
  }
  // The token-share volume: one directory for every process, where compose mounts it.
  const share = volumeMounts(resolved, service).find((m) => m.target === vars.SVC_TOKEN_SHARE_DIR);
  expect(share?.source, `${service} mounts the shared volume at SVC_TOKEN_SHARE_DIR`).toBe('token-share');
  env.SVC_TOKEN_SHARE_DIR = shareDir;
  delete env.DEMO_BANNER_FILE;
  return {
    // Only what a container would have: its environment, and a PATH to this Node.
    PATH: `${dirname(process.execPath)}:${join(REPO_ROOT, 'node_modules', '.bin')}:/usr/bin:/bin`,
    HOME: scratch,
    ...env,
    ...local,
  };
}

/** The compose command, with `npx <bin>` as the workspace bin and /app paths on this machine. */
function commandOf(service: string, replace: Record<string, string> = {}): string[] {
  const command = resolved.services[service]?.command ?? [];
  const words = (Array.isArray(command) ? command : [command]).map((word) => replace[word] ?? word);
  const npx = words.indexOf('npx');
  const bin = join(REPO_ROOT, 'node_modules', '.bin', words[npx + 1] ?? '');
  return [...words.slice(0, npx), bin, ...words.slice(npx + 2)].map((word) =>
    word.startsWith('infra/') ? join(REPO_ROOT, word) : onThisMachine(word),
  );
}

function start(name: string, command: string[], env: Record<string, string>): Child {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { process: child, output: () => `[${name}]\n${output}`, exit };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(kill);
}

/** The token the renewal owner last published in the shared directory, or undefined. */
function publishedToken(): { accessToken: string; expiresAt: number } | undefined {
  try {
    return JSON.parse(readFileSync(join(shareDir, `token-${ACCOUNT.clientId}.json`), 'utf8')) as {
      accessToken: string;
      expiresAt: number;
    };
  } catch {
    return undefined;
  }
}

async function metricsOf(url: string): Promise<string> {
  return fetch(url).then(
    (r) => (r.ok ? r.text() : ''),
    () => '',
  );
}

const gauge = (metrics: string, series: string): number =>
  Number(new RegExp(`^${series.replace(/[{}"=]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);

beforeAll(async () => {
  sim = await createSimulator({
    feed: { host: '127.0.0.1', port: 0 },
    rest: restServerHook({ port: 0, tokenLifetimeMs: TOKEN_LIFETIME_S * 1000, oneTokenPerAccount: true }),
  });
  mkdirSync(join(scratch, 'secrets'), { recursive: true });
  resolved = composeWith(operatorEnv());
}, 120_000);

afterAll(async () => {
  await Promise.all([...children].map(stopChild));
  await sim?.close();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('compose environment with 60 s tokens', () => {
  it('the ingestor, the gateway and the loader share one renewal and keep working across 3 renewals', async () => {
    const operator = operatorEnv();
    // Every credentials variable reaches the processes as compose computes it (paths aside).
    for (const service of ['feed-ingestor', 'history-loader', 'trading-gateway']) {
      const vars = containerEnvironment(resolved, service);
      const env = processEnv(service, operator, {});
      for (const name of Object.keys(CREDENTIALS_ENV)) {
        if (/_FILE$|_DIR$/.test(name)) continue;
        expect(env[name], `${service}.${name}`).toBe(vars[name]);
      }
      expect(env.SVC_TOKEN_SOURCE).toBe('totp');
    }

    const ingestorMetricsPort = await freePort();
    const ingestorOpsPort = await freePort();
    const ingestor = start(
      'feed-ingestor',
      commandOf('feed-ingestor'),
      processEnv('feed-ingestor', operator, {
        KAFKA_BROKERS: brokers.join(','),
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(ingestorMetricsPort),
        INGESTOR_OPS_HOST: '127.0.0.1',
        INGESTOR_OPS_PORT: String(ingestorOpsPort),
        DATA_DIR: join(scratch, 'ingestor'),
      }),
    );
    const gatewayPort = await freePort();
    const gateway = start(
      'trading-gateway',
      commandOf('trading-gateway'),
      processEnv('trading-gateway', operator, {
        KAFKA_BROKERS: brokers.join(','),
        CLICKHOUSE_URL: '',
        DATA_DIR: join(scratch, 'gateway'),
        TRADING_GATEWAY_HOST: '127.0.0.1',
        TRADING_GATEWAY_PORT: String(gatewayPort),
        // A trade key printed once at start, for the account calls below.
        TRADING_GATEWAY_BOOTSTRAP_KEY_NAME: 'renewal-test',
      }),
    );
    // The loader runs as a service (compose: --schedule): a run at start, then after each trading
    // day's close. Its runs are counted by outcome on its /metrics.
    const loaders: Array<{ child: Child; metrics: string }> = [];
    const startLoader = async (): Promise<{ child: Child; metrics: string }> => {
      const metricsPort = String(await freePort());
      const child = start(
        'history-loader',
        commandOf('history-loader', { '9466': metricsPort }),
        processEnv('history-loader', operator, {
          CLICKHOUSE_URL: '',
          DATA_DIR: join(scratch, 'loader'),
          METRICS_HOST: '127.0.0.1',
        }),
      );
      const loader = { child, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
      loaders.push(loader);
      return loader;
    };
    const runsOf = async (loader: { metrics: string }): Promise<{ finished: number; failed: number }> => {
      const text = await metricsOf(loader.metrics);
      const count = (state: string) => gauge(text, `history_loader_scheduled_runs_total{state="${state}"}`);
      return {
        finished: count('done') + count('bounded') + count('budget_exhausted'),
        failed: count('failed'),
      };
    };
    /** Waits for a loader's run at start to finish (bounded), failing on a failed run. */
    const startRunOf = (loader: { child: Child; metrics: string }) =>
      waitFor(
        async () => {
          const runs = await runsOf(loader);
          if (runs.failed > 0 || loader.child.process.exitCode !== null) {
            throw new Error(`the loader's run failed or it exited\n${loader.child.output().slice(-3_000)}`);
          }
          return runs.finished >= 1;
        },
        150_000,
        () => `the loader's run at start\n${loader.child.output().slice(-3_000)}`,
        500,
      );
    const firstLoader = await startLoader();
    const firstRun = startRunOf(firstLoader);
    const windowEnds = Date.now() + WINDOW_MS;

    // The ingestor's readiness detail (each connection's state and why) is polled with its metrics
    // and shown if a wait times out.
    let readiness = '';
    const why = (): string =>
      [ingestor.output(), `readyz: ${readiness}`, gateway.output(), loaders.at(-1)?.child.output() ?? '']
        .map((o) => o.slice(-3_000))
        .join('\n');
    const ingestorMetrics = `http://127.0.0.1:${ingestorMetricsPort}/metrics`;
    const metricsOfIngestor = async (): Promise<string> => {
      readiness = await fetch(`http://127.0.0.1:${ingestorMetricsPort}/readyz`).then(
        (r) => r.text(),
        (error: unknown) => String(error),
      );
      return metricsOf(ingestorMetrics);
    };
    await waitFor(
      async () => gauge(await metricsOfIngestor(), 'ingestor_connections{state="open"}') === 5,
      120_000,
      () => `the ingestor's 5 connections\n${why()}`,
      250,
    );
    // The ops route is served with the key compose passes as a secret file, and only with it.
    const subscriptions = `http://127.0.0.1:${ingestorOpsPort}/v1/subscriptions`;
    const held = await fetch(subscriptions, { headers: { 'x-api-key': OPS_KEY } });
    expect(held.status, why()).toBe(200);
    expect(((await held.json()) as { held: { trade: number } }).held.trade).toBeGreaterThan(0);
    expect((await fetch(subscriptions)).status).toBe(401);
    await waitFor(
      () => /shown once: \S+/.test(gateway.output()),
      60_000,
      () => `the gateway\n${why()}`,
      250,
    );
    const key = /shown once: (\S+)/.exec(gateway.output())?.[1] ?? '';
    const funds = (): Promise<number> =>
      fetch(`http://127.0.0.1:${gatewayPort}/v1/funds`, { headers: { 'x-api-key': key } }).then(
        (r) => r.status,
        () => 0,
      );

    /** After each new published token: every process works with it. */
    const tokens: string[] = [];
    const checks: Array<{ renewal: number; ingestorOpen: number; packetsGrew: boolean; funds: number }> = [];
    const first = publishedToken();
    expect(first, `a published token in the shared directory\n${why()}`).toBeDefined();
    tokens.push(first?.accessToken ?? '');
    while (tokens.length <= RENEWALS && Date.now() < windowEnds) {
      await waitFor(
        () => {
          const current = publishedToken();
          return current !== undefined && !tokens.includes(current.accessToken);
        },
        Math.max(1, windowEnds - Date.now()),
        () => `renewal ${tokens.length} within the window\n${why()}`,
        250,
      );
      tokens.push(publishedToken()?.accessToken ?? '');
      const before = gauge(await metricsOf(ingestorMetrics), 'ingestor_packets_total{type="trade"}');
      let open = 0;
      let status = 0;
      let loaderUp = false;
      await waitFor(
        async () => {
          open = gauge(await metricsOfIngestor(), 'ingestor_connections{state="open"}');
          status = await funds();
          loaderUp =
            firstLoader.child.process.exitCode === null && (await metricsOf(firstLoader.metrics)) !== '';
          return open === 5 && status === 200 && loaderUp;
        },
        45_000,
        () =>
          `renewal ${tokens.length - 1}: ingestor open ${open}, gateway /v1/funds ${status}, loader up ${loaderUp}\n${why()}`,
        250,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      const after = gauge(await metricsOf(ingestorMetrics), 'ingestor_packets_total{type="trade"}');
      checks.push({
        renewal: tokens.length - 1,
        ingestorOpen: open,
        packetsGrew: after > before,
        funds: status,
      });
    }
    // The loader's run at start finished; stopped and started again after the last renewal, it
    // takes the current token from the shared directory and its run at start finishes too.
    await firstRun;
    await stopChild(firstLoader.child.process);
    expect(await firstLoader.child.exit).toBe(0);
    const secondLoader = await startLoader();
    await startRunOf(secondLoader);

    expect(tokens.length, why()).toBe(RENEWALS + 1);
    expect(new Set(tokens).size).toBe(RENEWALS + 1);
    expect(
      checks.every((c) => c.ingestorOpen === 5 && c.packetsGrew && c.funds === 200),
      JSON.stringify(checks),
    ).toBe(true);
    // Nothing fatal on the feed, and the token never unrenewable.
    const metrics = await metricsOf(ingestorMetrics);
    expect(gauge(metrics, 'ingestor_connections{state="fatal"}')).toBe(0);
    expect(gauge(metrics, 'ingestor_token_unrenewable')).toBe(0);
    // No secret and no token in anything the processes printed.
    const printed = [ingestor.output(), gateway.output(), ...loaders.map((l) => l.child.output())].join('\n');
    for (const secret of [ACCOUNT.totpSecret, OPS_KEY, ...tokens]) {
      const fingerprint = createHash('sha256').update(secret).digest('hex').slice(0, 12);
      expect(printed.includes(secret), `a secret (sha256 ${fingerprint}...) was printed`).toBe(false);
    }
  }, 300_000);
});
