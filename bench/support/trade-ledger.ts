/**
 * The trades topic read back as a reader of the contract sees it, for bench:failover: every record
 * from the earliest offset up to the high watermarks, streamed (no object kept per record), copies
 * by source identity dropped per partition (`isSourceCopy`, as the sink does) and counted, and per
 * instrument the distinct volumes, order and largest gap between consecutive trades.
 *
 * In the simulator's load mode every trade adds one lot, so an instrument's volume is the trade's
 * sequence number: a volume twice is a duplicate, a volume not above the previous one is out of order.
 */
import { isSourceCopy, readSourceIdentity, SOURCE_HEADER, type SourceMark } from '@feedpipe/contracts';
import { KafkaAdmin, TopicTail } from '@feedpipe/kafka-client';

interface InstrumentTrades {
  volumes: Set<number>;
  lastVolume: number;
  /** Receive time of the previous trade, epoch µs. */
  lastReceivedAt: number;
  maxGapUs: number;
}

export interface TradeLedger {
  byInstrument: Map<number, InstrumentTrades>;
  /** Records dropped as copies of an earlier one (same source identity on the partition). */
  copies: number;
  /** Kept records whose (instrument, volume) was already kept. */
  duplicates: number;
  outOfOrder: number;
  /** Per ingestor run (fp-src): trade records kept, and the earliest receive time (epoch µs). */
  runs: Map<number, { trades: number; firstReceivedAt: number }>;
}

function note(ledger: TradeLedger, value: Buffer, run: number | undefined, gapsFromUs: number): void {
  const record = JSON.parse(value.toString('utf8')) as {
    securityId: number;
    volume: number;
    receivedAt: number;
  };
  let trades = ledger.byInstrument.get(record.securityId);
  if (!trades) {
    trades = { volumes: new Set(), lastVolume: -1, lastReceivedAt: 0, maxGapUs: 0 };
    ledger.byInstrument.set(record.securityId, trades);
  }
  if (trades.volumes.has(record.volume)) ledger.duplicates += 1;
  else trades.volumes.add(record.volume);
  if (record.volume <= trades.lastVolume) ledger.outOfOrder += 1;
  if (trades.lastReceivedAt >= gapsFromUs && trades.lastReceivedAt > 0)
    trades.maxGapUs = Math.max(trades.maxGapUs, record.receivedAt - trades.lastReceivedAt);
  trades.lastVolume = record.volume;
  trades.lastReceivedAt = record.receivedAt;
  if (run === undefined) return;
  const seen = ledger.runs.get(run) ?? { trades: 0, firstReceivedAt: Number.POSITIVE_INFINITY };
  seen.trades += 1;
  seen.firstReceivedAt = Math.min(seen.firstReceivedAt, record.receivedAt);
  ledger.runs.set(run, seen);
}

/**
 * `gapsFromUs`: gaps between consecutive trades count only from this receive time on (epoch µs):
 * a snapshot received while the load was paused is not followed by a gap of the load's.
 */
export async function readTradeLedger(
  brokers: string[],
  topic: string,
  timeoutMs: number,
  gapsFromUs = 0,
): Promise<TradeLedger> {
  const admin = new KafkaAdmin({ brokers, clientId: 'bench-failover-offsets' });
  const offsets = await admin.topicOffsets(topic).finally(() => admin.close());
  const highs = new Map(offsets.map((p) => [p.partition, Number(p.high)]));
  let remaining = offsets.reduce((n, p) => n + Number(p.high - p.low), 0);
  const ledger: TradeLedger = {
    byInstrument: new Map(),
    copies: 0,
    duplicates: 0,
    outOfOrder: 0,
    runs: new Map(),
  };
  const marks = new Map<number, Map<number, SourceMark>>();
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  if (remaining === 0) done();
  const tail = new TopicTail({
    brokers,
    clientId: 'bench-failover-read',
    topics: [topic],
    from: 'earliest',
    eachBatch: (batch) => {
      const high = highs.get(batch.partition) ?? 0;
      let partitionMarks = marks.get(batch.partition);
      if (!partitionMarks) {
        partitionMarks = new Map();
        marks.set(batch.partition, partitionMarks);
      }
      for (let i = 0; i < batch.count; i++) {
        if (batch.offset(i) >= high) continue;
        remaining -= 1;
        const source = batch.header(i, SOURCE_HEADER);
        if (isSourceCopy(partitionMarks, source)) {
          ledger.copies += 1;
          continue;
        }
        const value = batch.value(i);
        if (value) note(ledger, value, source ? readSourceIdentity(source)?.run : undefined, gapsFromUs);
      }
      if (remaining <= 0) done();
    },
  });
  const timer = setTimeout(done, timeoutMs);
  try {
    await tail.start();
    await finished;
  } finally {
    clearTimeout(timer);
    await tail.stop();
  }
  if (remaining > 0) throw new Error(`${remaining} records of ${topic} not read within ${timeoutMs} ms`);
  return ledger;
}
