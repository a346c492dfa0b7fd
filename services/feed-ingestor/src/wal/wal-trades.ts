/**
 * The trades a write-ahead log holds, as `securityId:volume` keys: what its process read from the
 * feed (the log is written on receipt). For checking a failover from outside: every one of them
 * must be in Kafka once (bench:failover, the failover tests).
 */
import { decodeFrameToRecords } from '@feedpipe/codec';
import { readWalStreams } from './wal-reader.js';

/** Adds the trades of one decode pack (frames, each behind a 12-byte length-and-time header). */
export function addPackTrades(pack: Uint8Array, out: Set<string>): void {
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  for (let at = 0; at < pack.byteLength; ) {
    const length = view.getUint32(at, true);
    for (const record of decodeFrameToRecords(pack.subarray(at + 12, at + 12 + length)))
      if (record.type === 'trade') out.add(`${record.securityId}:${record.volume}`);
    at += 12 + length;
  }
}

export function tradesInWal(dir: string): Set<string> {
  const out = new Set<string>();
  for (const stream of readWalStreams(dir)) for (const chunk of stream.chunks) addPackTrades(chunk.pack, out);
  return out;
}
