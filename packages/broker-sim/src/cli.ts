/**
 * `npx broker-sim`: starts the simulator (the live feed; the REST server joins through
 * `createSimulator`'s `rest` hook) and prints its URLs and the test credentials.
 * Ctrl-C (SIGINT) or SIGTERM stops it cleanly.
 */
import { parseArgs } from 'node:util';
import {
  createSimulator,
  type FeedServerOptions,
  restServerHook,
  SIM_TEST_ACCOUNTS,
  type Simulator,
} from './index.js';

const USAGE = `usage: broker-sim [options]

  --host <addr>              listen address (default 127.0.0.1)
  --feed-port <n>            live-feed WebSocket port (default 7075; 0 = any free port)
  --rest-port <n>            REST v2 port (default 7080; 0 = any free port)
  --no-rate-limits           do not enforce the REST rate limits
  --seed <n>                 market seed (default 1)
  --instruments <n>          INX_EQ instruments in the universe (default 30000)
  --ping-interval-ms <n>     server ping interval (default 10000)
  --tick-ms <n>              live-mode tick (default 100)
  --trades-per-second <n>    live mode: trades per second per subscribed instrument (default 2)
  --load <pps>               load mode: target packets per second across all subscriptions
  --fresh-trades <n>         trades per second of each just-subscribed instrument for 1 s, the
                             first right after its snapshot (default 20; 0: off)
  --sessions <pre,open,closed>  session cycle in ms, e.g. 60000,300000,60000 (default: always open)
  --token-lifetime-s <n>     lifetime of access tokens in seconds (default 86400, the service's 24 h)
  --one-token-per-account    issuing a token ends the account's previous one at once, as the service does
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
    'test credentials (REST tokens also open the feed):',
  );
  for (const a of SIM_TEST_ACCOUNTS) {
    lines.push(
      `  clientId ${a.clientId}  PIN ${a.pin}  TOTP secret ${a.totpSecret}  data plan ${a.dataPlan ? 'yes' : 'no'}` +
        (a.staticIp?.primary ? `  static IP ${a.staticIp.primary}` : ''),
    );
    if (a.webToken) lines.push(`    web-console access token: ${a.webToken}`);
    if (a.appId)
      lines.push(`    API key: app_id ${a.appId}  app_secret ${a.appSecret}  redirect ${a.redirectUrl}`);
    if (a.partnerId) lines.push(`    partner: partner_id ${a.partnerId}  partner_secret ${a.partnerSecret}`);
  }
  const token = SIM_TEST_ACCOUNTS[0]?.webToken ?? '';
  lines.push(
    `  example: ${sim.feed.connectUrl(SIM_TEST_ACCOUNTS[0]?.clientId ?? '', token)}`,
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
      'rest-port': { type: 'string' },
      'no-rate-limits': { type: 'boolean' },
      seed: { type: 'string' },
      instruments: { type: 'string' },
      'ping-interval-ms': { type: 'string' },
      'tick-ms': { type: 'string' },
      'trades-per-second': { type: 'string' },
      load: { type: 'string' },
      'fresh-trades': { type: 'string' },
      sessions: { type: 'string' },
      'token-lifetime-s': { type: 'string' },
      'one-token-per-account': { type: 'boolean' },
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
  const fresh = integerFlag('fresh-trades', values['fresh-trades']);
  if (fresh !== undefined) feed.freshTrades = { perSecond: fresh, forMs: 1_000 };
  const load = integerFlag('load', values.load);
  if (load !== undefined) feed.load = { packetsPerSecond: load };
  let sessions: { preOpenMs: number; openMs: number; closedMs: number } | undefined;
  if (values.sessions !== undefined) {
    const parts = values.sessions.split(',').map((p) => integerFlag('sessions', p.trim()) ?? 0);
    if (parts.length !== 3) throw new Error('--sessions takes three numbers: pre-open,open,closed (ms)');
    sessions = { preOpenMs: parts[0] ?? 0, openMs: parts[1] ?? 0, closedMs: parts[2] ?? 0 };
  }
  const lifetimeS = integerFlag('token-lifetime-s', values['token-lifetime-s']);
  const rest = restServerHook({
    port: integerFlag('rest-port', values['rest-port']) ?? 7080,
    rateLimits: !values['no-rate-limits'],
    ...(lifetimeS === undefined ? {} : { tokenLifetimeMs: Math.round(lifetimeS * 1000) }),
    ...(values['one-token-per-account'] ? { oneTokenPerAccount: true } : {}),
  });
  const sim = await createSimulator({
    seed: integerFlag('seed', values.seed) ?? 1,
    ...(values.instruments === undefined
      ? {}
      : { instruments: integerFlag('instruments', values.instruments) }),
    ...(sessions === undefined ? {} : { sessions }),
    feed,
    rest,
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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`broker-sim: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
});
