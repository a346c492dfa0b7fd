/**
 * The trading gateway's process under `npm start` (gateway-process.ts starts and supervises it).
 * It asks its parent for what to start with, builds the gateway on the parent's store, token and
 * rate limiter, reports ready, and stops when its parent tells it to or goes away.
 *
 * Ctrl-C in a terminal signals the whole process group: SIGINT is left to the parent, which stops
 * its parts in order, this one among them. SIGTERM sent to this process alone stops it (and the
 * parent starts it again).
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import { ParentPacedLimiter, parentTokens } from './child/account-calls.js';
import { CallChannel } from './child/calls.js';
import { remoteStore } from './child/store-calls.js';
import type { GatewayInit, GatewayReady } from './gateway-process.js';

const channel = new CallChannel(process);
let gateway: TradingGateway | undefined;
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await gateway?.stop().catch((error: unknown) => {
    process.stderr.write(`stop failed: ${(error as Error).message}\n`);
  });
  process.exit(code);
}

process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => void stop(0));
process.on('message', (message: { kind?: unknown }) => {
  if (message?.kind === 'stop') void stop(0);
});
// The parent is gone (killed): nothing may be left listening on its ports.
process.on('disconnect', () => void stop(1));

async function main(): Promise<void> {
  const init = await channel.call<GatewayInit>('init');
  const tokens = parentTokens(channel);
  const broker = init.baseUrl
    ? new BrokerClient({
        baseUrl: init.baseUrl,
        clientId: init.clientId,
        accessToken: tokens,
        ...(init.authUrl ? { authUrl: init.authUrl } : {}),
        ...(init.sharedLimiter ? { rateLimiter: new ParentPacedLimiter(channel) } : {}),
      })
    : undefined;
  gateway = await createTradingGateway(
    {
      host: init.host,
      port: init.port,
      logLevel: false,
      postbacks: { secret: init.postbackSecret, walDir: init.postbackWalDir },
      // Audit rows synced here before an order goes on, stored behind the answer: no store turn
      // through npm start's process is left on an order's answer path.
      auditJournal: { dir: init.auditJournalDir },
    },
    {
      store: remoteStore(channel, init.store),
      kafkaBrokers: init.brokers,
      logSecrets: init.logSecrets,
      // A process of its own, as compose runs it: its event loop, memory and CPU on its /metrics.
      processMetrics: true,
      ...(broker ? { broker } : {}),
    },
  );
  const url = await gateway.start();
  let keys: GatewayReady['keys'];
  if (init.createKeysNamed) {
    const trade = await gateway.keys.create(`${init.createKeysNamed}-trade`, ['trade']);
    const admin = await gateway.keys.create(`${init.createKeysNamed}-gateway-admin`, ['admin']);
    keys = { trade: trade.key, admin: admin.key };
  }
  await channel.call('ready', { url, pid: process.pid, keys } satisfies GatewayReady);
}

main().catch((error: unknown) => {
  process.stderr.write(`the gateway did not start: ${(error as Error).message}\n`);
  void stop(1);
});
