/**
 * Finds Market Status packets in a feed message without decoding it (spec: Binary packets): the
 * readiness check needs to know whether the market is open, and the decode workers are too far from
 * the socket to ask. A walk over packet headers only (length byte 9, code byte 10), no allocation;
 * it stops where the decoder would (a zero or overlong length).
 */
const MARKET_STATUS_CODE = 29;
const MARKET_STATUS_SIZE = 18;
const HEADER_SIZE = 11;
/** Offset of the int32 MarketStatus in the packet. */
const STATUS_OFFSET = 14;

/** The MarketStatus value of the last Market Status packet in `frame`, or undefined when it holds none. */
export function lastMarketStatus(frame: Uint8Array): number | undefined {
  let status: number | undefined;
  let at = 0;
  const end = frame.byteLength;
  while (at + HEADER_SIZE <= end) {
    const length = frame[at + 9] as number;
    if (length === 0 || at + length > end) break;
    if (frame[at + 10] === MARKET_STATUS_CODE && length >= MARKET_STATUS_SIZE) {
      const p = at + STATUS_OFFSET;
      // int32 little-endian, read byte-wise: `frame` may be any view, not only a Buffer.
      status =
        (frame[p] as number) |
        ((frame[p + 1] as number) << 8) |
        ((frame[p + 2] as number) << 16) |
        ((frame[p + 3] as number) << 24);
    }
    at += length;
  }
  return status;
}
