/**
 * Capture file layout (ARCHITECTURE.md, "Capture files"): the 8-byte magic `SVCCAP1\n`, then records
 * of u32 LE payload length, u64 LE receive time in microseconds since the epoch, and the payload
 * (one WebSocket binary message as received).
 */
export const CAPTURE_MAGIC: Readonly<Uint8Array> = Uint8Array.from([
  0x53, 0x56, 0x43, 0x43, 0x41, 0x50, 0x31, 0x0a,
]);
export const CAPTURE_RECORD_HEADER_SIZE = 12;
/**
 * Default ceiling on one payload when reading: a corrupt length must not make the reader allocate
 * gigabytes. 64 MiB is far above any feed message (the frame builder caps frames at 16 MiB).
 */
export const DEFAULT_MAX_CAPTURE_PAYLOAD = 64 * 1024 * 1024;
/** The format's own ceiling: the length field is a u32. */
export const MAX_CAPTURE_PAYLOAD_FORMAT = 0xffffffff;

export interface CaptureRecord {
  payload: Uint8Array;
  receivedAtMicros: bigint;
}

const U64_MAX = (1n << 64n) - 1n;

/** Microseconds as the u64 the header carries; refuses what a u64 cannot hold. */
export function toMicros(value: bigint | number): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n && value <= U64_MAX ? value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

/** Writes a record header at `at` of `view`; the caller has checked the room and the values. */
export function writeRecordHeader(view: DataView, at: number, length: number, micros: bigint): void {
  view.setUint32(at, length, true);
  view.setBigUint64(at + 4, micros, true);
}
