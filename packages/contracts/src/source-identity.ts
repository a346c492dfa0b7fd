/**
 * The source identity every feed record carries in its `fp-src` Kafka header: which ingestor run,
 * which connection, which chunk of that connection and which row of the chunk it was decoded from.
 * A record produced twice (the one remaining window: a producer replaced while a chunk was
 * unacknowledged, see docs/architecture.md) carries the same identity both times, whatever its
 * Kafka offsets, so a reader can drop the second copy.
 *
 * Layout (14 bytes, big-endian): run u32, connection u16, chunk u32, row u32. Within one run and
 * connection, chunks are produced in order (one in flight at a time) and rows in order within a
 * chunk, so on each partition the (chunk, row) of a connection only ever grows: anything at or
 * below the highest seen is a copy.
 */
export const SOURCE_HEADER = 'fp-src';
export const SOURCE_BYTES = 14;

export interface SourceIdentity {
  run: number;
  connection: number;
  chunk: number;
  row: number;
}

export function writeSourceIdentity(out: DataView, identity: SourceIdentity): void {
  out.setUint32(0, identity.run);
  out.setUint16(4, identity.connection);
  out.setUint32(6, identity.chunk);
  out.setUint32(10, identity.row);
}

/** The identity in a header value, or undefined when the value is not one (wrong length). */
export function readSourceIdentity(bytes: Uint8Array): SourceIdentity | undefined {
  if (bytes.byteLength !== SOURCE_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    run: view.getUint32(0),
    connection: view.getUint16(4),
    chunk: view.getUint32(6),
    row: view.getUint32(10),
  };
}

/** A big-endian u32 at `at` (no DataView per record: this runs for every record a reader takes). */
function u32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) * 0x1000000 +
    (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))
  );
}

/** The highest (chunk, row) seen of one source stream on one partition. */
export interface SourceMark {
  chunk: number;
  row: number;
}

/** Streams remembered per partition; the oldest is forgotten beyond this (each run adds a few). */
export const MAX_SOURCE_STREAMS_PER_PARTITION = 4_096;

/**
 * The copy rule of the layout above, for a reader's marks of ONE partition (stream -> mark): true
 * when the record with this `fp-src` value is at or below its stream's mark (a copy); otherwise it
 * becomes the mark. A record without a valid header is never a copy. Reads the bytes in place (no
 * object per record); the marks are bounded by MAX_SOURCE_STREAMS_PER_PARTITION.
 */
export function isSourceCopy(marks: Map<number, SourceMark>, header: Uint8Array | undefined): boolean {
  if (header === undefined || header.byteLength !== SOURCE_BYTES) return false;
  const stream = u32(header, 0) * 65_536 + ((header[4] as number) << 8) + (header[5] as number);
  const chunk = u32(header, 6);
  const row = u32(header, 10);
  const mark = marks.get(stream);
  if (mark === undefined) {
    if (marks.size >= MAX_SOURCE_STREAMS_PER_PARTITION) {
      const oldest = marks.keys().next().value;
      if (oldest !== undefined) marks.delete(oldest);
    }
    marks.set(stream, { chunk, row });
    return false;
  }
  if (chunk < mark.chunk || (chunk === mark.chunk && row <= mark.row)) return true;
  mark.chunk = chunk;
  mark.row = row;
  return false;
}
