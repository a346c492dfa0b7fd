/**
 * `npx broker-sim`: starts the simulator (the live feed; the REST server joins through
 * `createSimulator`'s `rest` hook) and prints its URLs and the test credentials.
 * Ctrl-C (SIGINT) or SIGTERM stops it cleanly.
 */
import { parseArgs } from 'node:util';
import {
  createSimulator,
  DEFAULT_FEED_CREDENTIALS,
  type FeedServerOptions,
  type RestHook,
  type Simulator,
} from './index.js';

const USAGE = `usage: broker-sim [options]

  --host <addr>              listen address (default 127.0.0.1)
  --feed-port <n>            live-feed WebSocket port (default 7075; 0 = any free port)
  --seed <n>                 market seed (default 1)
  --instruments <n>          INX_EQ instruments in the universe (default 30000)
  --ping-interval-ms <n>     server ping interval (default 10000)
  --tick-ms <n>              live-mode tick (default 100)
  --trades-per-second <n>    live mode: trades per second per subscribed instrument (default 2)
  --load <pps>               load mode: target packets per second across all subscriptions
  --sessions <pre,open,closed>  session cycle in ms, e.g. 60000,300000,60000 (default: always open)
  --help                     this text
`;

function integerFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !/^\d+(\.\d+)?$/.test(value)) {
    throw new Error(`--${name} must be a non-negative number, got "${value}"`);
  }
  return n;
}

/** The REST server is wired here once it is available; until then the feed runs alone. */
function restHook(): RestHook | undefined {
  return undefined;
}

function describe(sim: Simulator): string {
  const lines = [
    '',
    'broker-sim is running',
    `  live feed   ${sim.feed.url}   (?clientId=<id>&token=<token>&authType=2&version=2)`,
  ];
  if (sim.rest) {
    lines.push(`  REST v2     ${sim.rest.baseUrl}/v2`);
    if (sim.rest.authUrl) lines.push(`  auth        ${sim.rest.authUrl}`);
  }
  lines.push(
    `  market      seed ${sim.model.seed}, ${sim.model.universe.length} instruments, session ${sim.model.session()}`,
    '',
    'test credentials (feed):',
  );
  for (const c of DEFAULT_FEED_CREDENTIALS.clients) {
    const note =
      c.dataPlan === false
        ? '  -> error 806 (no data plan)'
        : c.tokenExpiresAtMs !== undefined
          ? '  -> error 807 (expired token)'
          : '';
    lines.push(`  clientId ${c.clientId}  token ${c.accessToken}  authType 2${note}`);
  }
  for (const p of DEFAULT_FEED_CREDENTIALS.partners) {
    lines.push(`  partner  ${p.partnerId}  secret ${p.partnerSecret}  authType 3`);
  }
  lines.push(
    `  example: ${sim.feed.connectUrl('1000000001', 'sim-token-1000000001')}`,
    '  Ctrl-C stops it.',
    '',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    strict: true,
    options: {
      host: { type: 'string' },
      'feed-port': { type: 'string' },
      seed: { type: 'string' },
      instruments: { type: 'string' },
      'ping-interval-ms': { type: 'string' },
      'tick-ms': { type: 'string' },
      'trades-per-second': { type: 'string' },
      load: { type: 'string' },
      sessions: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const feed: Omit<FeedServerOptions, 'model'> = {
    port: integerFlag('feed-port', values['feed-port']) ?? 7075,
  };
  if (values.host !== undefined) feed.host = values.host;
  const pingIntervalMs = integerFlag('ping-interval-ms', values['ping-interval-ms']);
  if (pingIntervalMs !== undefined) feed.pingIntervalMs = pingIntervalMs;
  const tickMs = integerFlag('tick-ms', values['tick-ms']);
  if (tickMs !== undefined) feed.tickIntervalMs = tickMs;
  const tradesPerSecond = integerFlag('trades-per-second', values['trades-per-second']);
  if (tradesPerSecond !== undefined) feed.tradesPerSecond = tradesPerSecond;
  const load = integerFlag('load', values.load);
  if (load !== undefined) feed.load = { packetsPerSecond: load };
  let sessions: { preOpenMs: number; openMs: number; closedMs: number } | undefined;
  if (values.sessions !== undefined) {
    const parts = values.sessions.split(',').map((p) => integerFlag('sessions', p.trim()) ?? 0);
    if (parts.length !== 3) throw new Error('--sessions takes three numbers: pre-open,open,closed (ms)');
    sessions = { preOpenMs: parts[0] ?? 0, openMs: parts[1] ?? 0, closedMs: parts[2] ?? 0 };
  }
  const rest = restHook();
  const sim = await createSimulator({
    seed: integerFlag('seed', values.seed) ?? 1,
    ...(values.instruments === undefined
      ? {}
      : { instruments: integerFlag('instruments', values.instruments) }),
    ...(sessions === undefined ? {} : { sessions }),
    feed,
    ...(rest === undefined ? {} : { rest }),
  });
  process.stdout.write(describe(sim));

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\nstopping (${signal})...\n`);
    const hardStop = setTimeout(() => process.exit(1), 5_000);
    hardStop.unref();
    sim.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stop failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`broker-sim: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
});
