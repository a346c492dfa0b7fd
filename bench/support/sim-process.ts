/**
 * The simulator's live feed in a process of its own, for benchmarks: it gets its own event loop, so
 * its cost is not charged to the process under test. Controlled over the IPC channel of fork():
 * { cmd: 'resume' | 'pause' | 'stats' | 'sent' | 'close' }; answers { type: 'ready', url, ids, rest },
 * { type: 'stats', stats, trades, distinctTrades, memory } (sums of the per-instrument counts) and
 * { type: 'sent', sent: [securityId, distinct trades][] } (per instrument).
 *
 * Arguments: instruments, packets per second, and optionally a token lifetime in seconds. With a
 * lifetime the REST server runs beside the feed over the same model, one token per account, as the
 * service keeps it: tokens come from generateAccessToken (`rest` in 'ready' has its URLs), a new one
 * ends the previous at once, and an open connection whose token stopped gets Error 807.
 */
import { createSimulator, restServerHook } from '@feedpipe/broker-sim';

const [instruments, rate, lifetimeS = 0] = process.argv.slice(2).map(Number) as [number, number, number?];
const sim = await createSimulator({
  seed: 42,
  instruments: Math.max(instruments, 1),
  feed: {
    port: 0,
    load: { packetsPerSecond: rate, tickIntervalMs: 5 },
    maxBufferedBytes: 16 * 1024 * 1024,
  },
  ...(lifetimeS > 0
    ? {
        rest: restServerHook({
          port: 0,
          tokenLifetimeMs: Math.round(lifetimeS * 1000),
          oneTokenPerAccount: true,
          rateLimits: false,
        }),
      }
    : {}),
});
const { feed: server, model } = sim;
server.pause();

/** Trade packets sent, and the distinct trades among them (a repeated snapshot counts once). */
function sentTrades(): { trades: number; distinctTrades: number } {
  let trades = 0;
  let distinctTrades = 0;
  for (const instrument of model.universe) {
    if (instrument.exchangeSegment !== 'INX_EQ') continue;
    const sent = server.sentFor(instrument.securityId);
    trades += sent.trade;
    distinctTrades += sent.distinctTrade;
  }
  return { trades, distinctTrades };
}

/** [securityId, distinct trades sent] of every INX_EQ instrument that was sent a trade. */
function sentPerInstrument(): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const instrument of model.universe) {
    if (instrument.exchangeSegment !== 'INX_EQ') continue;
    const sent = server.sentFor(instrument.securityId);
    if (sent.distinctTrade > 0) out.push([instrument.securityId, sent.distinctTrade]);
  }
  return out;
}

process.on('message', (message: { cmd: string }) => {
  switch (message.cmd) {
    case 'resume':
      server.resume();
      break;
    case 'pause':
      server.pause();
      break;
    case 'stats':
      process.send?.({
        type: 'stats',
        stats: server.stats(),
        ...sentTrades(),
        memory: process.memoryUsage(),
      });
      break;
    case 'sent':
      process.send?.({ type: 'sent', sent: sentPerInstrument() });
      break;
    case 'close':
      void sim.close().then(() => process.exit(0));
      break;
  }
});
process.send?.({
  type: 'ready',
  url: server.url,
  ids: model.universe.filter((i) => i.exchangeSegment === 'INX_EQ').map((i) => i.securityId),
  rest: sim.rest ? { baseUrl: sim.rest.baseUrl, authUrl: sim.rest.authUrl ?? sim.rest.baseUrl } : undefined,
});
