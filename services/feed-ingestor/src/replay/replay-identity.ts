/**
 * The source identity (`fp-src`, @feedpipe/contracts source-identity.ts) of replayed records. The
 * live ingestor numbers its records by run, connection, chunk and row, with a random run per
 * process; a replay instead derives every record's identity from the source alone, so replaying the
 * same source again (a retry, a resumed or overlapping range, at any speed) gives each record the
 * identity it had the first time. On the live topics the sink's marks then call the second copy a
 * copy (isSourceCopy: at or below its stream's mark on the partition) and store it once.
 *
 * The identity's stream (run, connection) names the source; the connection numbers a replay uses
 * are beyond any live ingestor's (INGESTOR_CONNECTIONS is at most 5), so a replay's stream is never
 * a live one:
 * - a capture file: run = CRC-32C of its first record (receive time and bytes), connection 0xfffe,
 *   chunk = the frame's index in the file, row = the packet's index in the frame;
 * - rows of the store: run = the receive time in microseconds divided by 2^32 (a stream per ~72
 *   minutes), connection 0xffff, chunk = the rest of that division, row = the row's place among
 *   the stored rows of that same microsecond (in the order replay-store-source.ts reads them).
 * Either way (chunk, row) grows in the order the replay produces, as the copy rule needs.
 */

import { SOURCE_BYTES, type SourceIdentity, writeSourceIdentity } from '@feedpipe/contracts';
import { crc32c } from '@feedpipe/kafka-client';

export const REPLAY_CAPTURE_CONNECTION = 0xfffe;
export const REPLAY_STORE_CONNECTION = 0xffff;

const TWO_POW_32 = 2 ** 32;

/** The run of a capture file's replays: its first record (receive time, then payload) hashed. */
export function captureRun(firstReceivedAtMicros: bigint, firstPayload: Uint8Array): number {
  const header = new Uint8Array(8);
  new DataView(header.buffer).setBigUint64(0, firstReceivedAtMicros, true);
  const both = new Uint8Array(8 + firstPayload.byteLength);
  both.set(header, 0);
  both.set(firstPayload, 8);
  return crc32c(both) >>> 0;
}

export function captureIdentity(run: number, frameIndex: number, packetIndex: number): SourceIdentity {
  return { run, connection: REPLAY_CAPTURE_CONNECTION, chunk: frameIndex, row: packetIndex };
}

/** The identity of a stored row received at `micros`, the `ordinal`-th of that microsecond. */
export function storeIdentity(micros: number, ordinal: number): SourceIdentity {
  const run = Math.floor(micros / TWO_POW_32);
  return { run, connection: REPLAY_STORE_CONNECTION, chunk: micros - run * TWO_POW_32, row: ordinal };
}

/** The `fp-src` header value of an identity. */
export function identityBytes(identity: SourceIdentity): Buffer {
  const bytes = Buffer.alloc(SOURCE_BYTES);
  writeSourceIdentity(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), identity);
  return bytes;
}
