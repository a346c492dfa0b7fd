/**
 * The simulator's live feed in a process of its own, for benchmarks: it gets its own event loop, so
 * its cost is not charged to the process under test. Controlled over the IPC channel of fork():
 * { cmd: 'resume' | 'pause' | 'stats' | 'close' }; answers { type: 'ready', url } and
 * { type: 'stats', stats } and { type: 'sent', trades } (sum of per-instrument trade packets).
 */
import { MarketModel, startFeedServer } from '@feedpipe/broker-sim';

const [instruments, rate] = process.argv.slice(2).map(Number) as [number, number];
const model = new MarketModel({ seed: 42, instruments: Math.max(instruments, 1) });
const server = await startFeedServer({
  model,
  port: 0,
  load: { packetsPerSecond: rate, tickIntervalMs: 5 },
  maxBufferedBytes: 16 * 1024 * 1024,
});
server.pause();

function sentTrades(): number {
  let total = 0;
  for (const instrument of model.universe) {
    if (instrument.exchangeSegment !== 'INX_EQ') continue;
    total += server.sentFor(instrument.securityId).trade;
  }
  return total;
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
        trades: sentTrades(),
        memory: process.memoryUsage(),
      });
      break;
    case 'close':
      void server.close().then(() => process.exit(0));
      break;
  }
});
process.send?.({
  type: 'ready',
  url: server.url,
  ids: model.universe.filter((i) => i.exchangeSegment === 'INX_EQ').map((i) => i.securityId),
});
