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
