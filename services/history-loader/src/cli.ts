/**
 * history-loader CLI. Configuration from the environment (ARCHITECTURE.md): SVC_BASE_URL,
 * SVC_CLIENT_ID, SVC_TOKEN_SOURCE and its variables (docs/configuration.md, Credentials), CLICKHOUSE_URL (unset: embedded chDB in DATA_DIR/chdb, DATA_DIR
 * default .data, the same directory the sink and `npm start` use), METRICS_HOST (default 127.0.0.1).
 * Flags:
 *   --universe <file>      universe JSON or CSV (required); a JSON file's "plan" object is the plan
 *   --plan <file>          a JSON plan (PlanOptions), overriding the universe file's
 *   --dry-run              print the plan (units, requests, days of budget) and exit
 *   --max-requests <n>     stop after n units;  --max-seconds <n>  stop starting units after n s
 *   --metrics-port <n>     serve /metrics, /healthz, /readyz on METRICS_HOST:n (0 = off, default)
 * Exit codes: 0 done or bounded, 2 budget exhausted (stderr says when to go on), 1 failed.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Credentials, credentialsConfigFromEnv, startCredentials } from '@feedpipe/credentials';
import {
  ConnectionBudget,
  createLimitedServer,
  OPS_SERVER_LIMITS,
  registerProcessMetrics,
} from '@feedpipe/service-kit';
import { createStore } from '@feedpipe/store';
import { type HistoryLoaderEnv, historyLoaderEnv } from './env.js';
import { LoaderError } from './errors.js';
import { createHistoryLoader } from './loader.js';
import type { PlanOptions } from './plan-options.js';
import { startProgress } from './progress.js';

function fail(message: string): never {
  process.stderr.write(`history-loader: ${message}\n`);
  process.exit(1);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    fail(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function positive(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a non-negative number`);
  return n;
}

/** /metrics, /healthz and /readyz of a run, bounded like every HTTP server (service-kit's http-server-limits.ts). */
function serveMetrics(loader: ReturnType<typeof createHistoryLoader>, port: number, host: string): Server {
  return createLimitedServer(
    (req, res) => {
      if (req.url === '/metrics') {
        void loader.registry.metrics().then((text) => {
          res.writeHead(200, { 'content-type': loader.registry.contentType });
          res.end(text);
        });
      } else if (req.url === '/healthz' || req.url === '/readyz') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(loader.status()));
      } else {
        res.writeHead(404).end();
      }
    },
    OPS_SERVER_LIMITS,
    { budget: new ConnectionBudget(OPS_SERVER_LIMITS.maxConnections) },
  ).listen(port, host);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      universe: { type: 'string' },
      plan: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'max-requests': { type: 'string' },
      'max-seconds': { type: 'string' },
      'metrics-port': { type: 'string' },
    },
  });
  if (values.universe === undefined) fail('--universe <file> is required');
  let vars: HistoryLoaderEnv;
  try {
    vars = historyLoaderEnv(process.env);
  } catch (error) {
    fail((error as Error).message);
  }
  // Unset, the library takes the universe file's own plan (a JSON file's `plan` object).
  const plan = values.plan === undefined ? undefined : (readJson(values.plan) as PlanOptions);
  const maxRequests = positive(values['max-requests'], 'max-requests');
  const maxSeconds = positive(values['max-seconds'], 'max-seconds');
  let tokens: Credentials;
  try {
    tokens = await startCredentials(credentialsConfigFromEnv(process.env, vars.SVC_CLIENT_ID), {
      log: (message) =>
        process.stderr.write(
          `${JSON.stringify({ time: new Date().toISOString(), event: 'credentials', message })}\n`,
        ),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const store = createStore({
    url: vars.CLICKHOUSE_URL,
    dataDir: join(vars.DATA_DIR, 'chdb'),
  });
  const loader = createHistoryLoader(
    {
      broker: {
        baseUrl: vars.SVC_BASE_URL,
        clientId: vars.SVC_CLIENT_ID,
        accessToken: tokens,
      },
      universe: values.universe,
      ...(plan === undefined ? {} : { plan }),
      ...(maxRequests === undefined ? {} : { maxRequests }),
      ...(maxSeconds === undefined ? {} : { maxSeconds }),
    },
    {
      clickhouse: store.internal,
      log: (event, fields) => {
        if (event !== 'plan' || !process.stderr.isTTY) {
          process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
        }
      },
    },
  );
  if (values['dry-run']) {
    process.stdout.write(`${JSON.stringify(await loader.plan(), null, 2)}\n`);
    await tokens.stop();
    await store.close();
    return;
  }
  const port = positive(values['metrics-port'], 'metrics-port') ?? 0;
  if (port > 0) registerProcessMetrics(loader.registry, 'history_loader_');
  const ops = port > 0 ? serveMetrics(loader, port, vars.METRICS_HOST) : undefined;
  const progress = startProgress(() => loader.status(), process.stderr);
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    void loader.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const result = await loader.run();
  progress.stop();
  ops?.close();
  await tokens.stop();
  await store.close();
  if (result.state === 'budget_exhausted') {
    const at = result.resumeAt === undefined ? 'later' : new Date(result.resumeAt).toISOString();
    process.stderr.write(`history-loader: the day's Data API budget is spent; run again at ${at}\n`);
    process.exitCode = 2;
  } else if (result.state === 'failed') {
    process.stderr.write(`history-loader: failed: ${result.error ?? 'unknown error'}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  const code = error instanceof LoaderError ? `${error.code}: ` : '';
  fail(`${code}${error instanceof Error ? error.message : String(error)}`);
});
