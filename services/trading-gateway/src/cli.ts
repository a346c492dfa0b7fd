/**
 * trading-gateway CLI.
 *   trading-gateway run                        run the gateway (environment: env.ts); `serve` too
 *   trading-gateway create-key NAME SCOPES     create a gateway key (SCOPES: trade,admin), print it once
 *   trading-gateway list-keys | revoke-key ID  [--url URL]: while a running gateway on embedded chDB
 *                                              holds the store (npm start), through its admin routes,
 *                                              with an admin key in TRADING_GATEWAY_ADMIN_KEY
 * Keys of the gateway are not keys of the query API (each has its own table), and the other way round.
 */
import { BrokerClient, type RateLimiter, sharedQuoteLimiter } from '@feedpipe/broker-api';
import { type CredentialsConfig, FileRateSlots, startCredentials } from '@feedpipe/credentials';
import { KEY_COMMANDS, openLocalKeyStore, redactLogText, runKeyCommand } from '@feedpipe/service-http';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { createTradingGateway } from './app.js';
import { type GatewayEnv, gatewayEnv } from './env.js';
import { GATEWAY_KEYS_TABLE, GATEWAY_SCOPES, type GatewayScope } from './scopes.js';

/** Secrets of the environment, once read: scrubbed from anything this CLI prints about a failure. */
const knownSecrets: string[] = [];

function fail(message: string): never {
  process.stderr.write(`trading-gateway: ${redactLogText(message, knownSecrets)}\n`);
  process.exit(2);
}

/** `--url URL` among the arguments, removed from them. */
function takeUrl(args: string[]): string | undefined {
  const at = args.indexOf('--url');
  if (at === -1) return undefined;
  const url = args[at + 1] ?? fail('--url needs a URL, e.g. --url http://127.0.0.1:8090');
  args.splice(at, 2);
  return url;
}

/** create-key, list-keys, revoke-key: on the store here, or through a running gateway's admin routes. */
async function keyCommand(command: string, args: string[], config: GatewayEnv): Promise<never> {
  const vars = process.env;
  const adminKey = vars.TRADING_GATEWAY_ADMIN_KEY || undefined;
  if (adminKey) knownSecrets.push(adminKey);
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  const code = await runKeyCommand<GatewayScope>(command, args, {
    program: 'trading-gateway',
    scopes: GATEWAY_SCOPES,
    url: takeUrl(args) ?? (vars.TRADING_GATEWAY_URL || undefined),
    defaultUrl: `http://${host}:${config.port}`,
    adminKey,
    adminKeyVariable: 'TRADING_GATEWAY_ADMIN_KEY',
    openLocal: () => openLocalKeyStore(config.store, GATEWAY_KEYS_TABLE, GATEWAY_SCOPES),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`trading-gateway: ${redactLogText(line, knownSecrets)}\n`),
  });
  process.exit(code);
}

/**
 * With SVC_TOKEN_SHARE_DIR the quote category's slots are shared with the account's other processes
 * there (the quote poller, `history-loader --quotes`), so together they keep to its 1 request a
 * second. The same quote margin as the poller's (QUOTE_MARGIN_MS's default), and the margin of the
 * gateway's other categories too: they count from each answer, where it only covers the service's
 * clock granularity.
 */
function sharedQuoteSlots(
  clientId: string,
  credentials: CredentialsConfig | undefined,
): { rateLimiter?: RateLimiter } {
  if (credentials?.shareDir === undefined) return {};
  const sharedSlots = new FileRateSlots(credentials.shareDir, clientId, ['quote']);
  return { rateLimiter: sharedQuoteLimiter(undefined, sharedSlots) };
}

async function run(config: GatewayEnv, store: Store): Promise<void> {
  // The trading account's token, renewed ahead of expiry by its source; a refused one is renewed
  // once and the call retried by the client.
  const tokens =
    config.broker && config.credentials
      ? await startCredentials(config.credentials, {
          log: (m) => process.stderr.write(`trading-gateway: ${redactLogText(m, knownSecrets)}\n`),
        })
      : undefined;
  const broker = config.broker
    ? new BrokerClient({
        ...config.broker,
        ...(tokens ? { accessToken: tokens } : {}),
        ...sharedQuoteSlots(config.broker.clientId, config.credentials),
      })
    : undefined;
  if (!broker) {
    process.stderr.write(
      'trading-gateway: SVC_BASE_URL is unset: order routes answer 503 TRADING_DISABLED\n',
    );
  }
  const gateway = await createTradingGateway(
    {
      host: config.host,
      port: config.port,
      logLevel: config.logLevel,
      server: config.server,
      fills: config.fills,
      ...(config.postbacks
        ? { postbacks: { ...config.postbacks, maxStreamClientsPerKey: config.streamsPerKey } }
        : {}),
      auditJournal: config.auditJournal,
    },
    {
      store,
      kafkaBrokers: config.kafkaBrokers,
      processMetrics: true,
      logSecrets: config.secrets,
      ...(broker ? { broker } : {}),
    },
  );
  if (config.bootstrapKeyName) {
    const created = await gateway.keys.create(config.bootstrapKeyName, ['trade']);
    process.stdout.write(`trading-gateway key (trade), shown once: ${created.key}\n`);
  }
  const url = await gateway.start();
  process.stderr.write(`trading-gateway listening on ${url} (docs at ${url}/docs)\n`);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await tokens?.stop();
    await gateway.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

const COMMANDS = ['run', 'serve', 'create-key', 'list-keys', 'revoke-key'];

async function main(): Promise<void> {
  const [command = 'run', ...args] = process.argv.slice(2);
  if (!COMMANDS.includes(command)) fail(`unknown command "${command}" (${COMMANDS.join(', ')})`);
  const config = gatewayEnv(process.env);
  knownSecrets.push(...config.secrets);
  if ((KEY_COMMANDS as readonly string[]).includes(command)) await keyCommand(command, args, config);
  const store = createStore(config.store);
  await runMigrations(store.internal);
  await run(config, store);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`trading-gateway: ${redactLogText(message, knownSecrets)}\n`);
  process.exit(1);
});
