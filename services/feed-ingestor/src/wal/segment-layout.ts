/**
 * The on-disk layout of the feed write-ahead log: one stream of segments per (ingestor run, feed
 * connection), each segment two files:
 *
 *   <run, 8 hex>-<connection, 5 digits>-<first chunk, 10 digits>.cap   the frames, a capture file
 *   <same name>.idx                                                     the chunk ledger
 *
 * The `.cap` file is the codec's capture format unchanged (magic, then u32 LE length, u64 LE receive
 * time in µs, payload per frame), so `feed-ingestor replay` and the codec CLI read a segment as they
 * read any capture. The `.idx` file holds 8-byte entries, u32 LE kind then u32 LE value:
 *   kind 1 (sealed): the connection's next chunk was handed to decoding with `value` frames;
 *   kind 2 (acked):  Kafka acknowledged every chunk of the connection up to sequence `value`.
 * Chunks of a connection take the frames in order, so with the segment's first chunk number (in its
 * name) the ledger rebuilds each chunk's exact frames, and a replayed chunk gets the same source
 * identity (run, connection, chunk, row) as its first attempt (@feedpipe/contracts).
 * A segment starts only at a chunk boundary, so no chunk spans two segments.
 */
export const LEDGER_ENTRY_BYTES = 8;
export const LEDGER_SEALED = 1;
export const LEDGER_ACKED = 2;

export interface SegmentName {
  run: number;
  connection: number;
  firstChunk: number;
}

const NAME = /^([0-9a-f]{8})-(\d{5})-(\d{10})\.cap$/;

export function framesFileOf(name: SegmentName): string {
  const run = name.run.toString(16).padStart(8, '0');
  const connection = String(name.connection).padStart(5, '0');
  return `${run}-${connection}-${String(name.firstChunk).padStart(10, '0')}.cap`;
}

export function ledgerFileOf(framesFile: string): string {
  return framesFile.replace(/\.cap$/, '.idx');
}

/** The segment a `.cap` file name stands for, or undefined for any other file. */
export function parseSegmentName(file: string): SegmentName | undefined {
  const match = NAME.exec(file);
  if (!match) return undefined;
  return {
    run: Number.parseInt(match[1] as string, 16),
    connection: Number(match[2]),
    firstChunk: Number(match[3]),
  };
}

/** One ledger entry as bytes. */
export function ledgerEntry(kind: number, value: number): Buffer {
  const entry = Buffer.allocUnsafe(LEDGER_ENTRY_BYTES);
  entry.writeUInt32LE(kind, 0);
  entry.writeUInt32LE(value, 4);
  return entry;
}
