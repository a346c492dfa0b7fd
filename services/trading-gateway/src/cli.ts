/**
 * trading-gateway CLI.
 *   trading-gateway run                        run the gateway (environment: env.ts); `serve` too
 *   trading-gateway create-key NAME SCOPES     create a gateway key (SCOPES: trade,admin), print it once
 *   trading-gateway list-keys | revoke-key ID  (the store must not be held by a running embedded
 *                                              gateway: use its admin routes /v1/admin/keys instead)
 * Keys of the gateway are not keys of the query API (each has its own table), and the other way round.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { startCredentials } from '@feedpipe/credentials';
import { ApiKeyStore, redactLogText } from '@feedpipe/service-http';
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

function scopes(raw: string | undefined): GatewayScope[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (list.length === 0) fail(`give the scopes as a comma-separated list of ${GATEWAY_SCOPES.join(', ')}`);
  for (const s of list) {
    if (!GATEWAY_SCOPES.includes(s as GatewayScope)) {
      fail(`unknown scope "${s}" (allowed: ${GATEWAY_SCOPES.join(', ')})`);
    }
  }
  return list as GatewayScope[];
}

async function keyCommand(command: string, args: string[], store: Store): Promise<void> {
  const keys = new ApiKeyStore<GatewayScope>(store.internal, {
    table: GATEWAY_KEYS_TABLE,
    scopes: GATEWAY_SCOPES,
    cacheMs: 0,
  });
  if (command === 'create-key') {
    const created = await keys.create(
      args[0] ?? fail('usage: trading-gateway create-key NAME trade[,admin]'),
      scopes(args[1]),
    );
    process.stdout.write(
      `${JSON.stringify({ keyId: created.keyId, scopes: created.scopes, key: created.key })}\n`,
    );
    process.stderr.write('store the key now: it is not kept and cannot be shown again\n');
  } else if (command === 'list-keys') {
    for (const key of await keys.list()) process.stdout.write(`${JSON.stringify(key)}\n`);
  } else {
    const done = await keys.revoke(args[0] ?? fail('usage: trading-gateway revoke-key KEY_ID'));
    process.stdout.write(done ? 'revoked\n' : 'no such key\n');
  }
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
    ? new BrokerClient({ ...config.broker, ...(tokens ? { accessToken: tokens } : {}) })
    : undefined;
  if (!broker) {
    process.stderr.write(
      'trading-gateway: SVC_BASE_URL is unset: order routes answer 503 TRADING_DISABLED\n',
    );
  }
  const gateway = await createTradingGateway(
    { host: config.host, port: config.port, logLevel: config.logLevel },
    {
      store,
      kafkaBrokers: config.kafkaBrokers,
      processMetrics: true,
      logSecrets: config.secrets,
      ...(broker ? { broker } : {}),
      ...(config.postbacks ? { postbacks: config.postbacks } : {}),
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
  const store = createStore(config.store);
  await runMigrations(store.internal);
  if (command === 'run' || command === 'serve') {
    await run(config, store);
    return;
  }
  await keyCommand(command, args, store);
  await store.close();
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`trading-gateway: ${redactLogText(message, knownSecrets)}\n`);
  process.exit(1);
});
