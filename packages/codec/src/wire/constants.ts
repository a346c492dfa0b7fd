/**
 * Wire constants of the global-stocks live feed (service-interface.md, "Binary packets").
 *
 * Header, 11 bytes, little-endian, packed:
 *   0      uint8  exchange segment (14 = INX_EQ)
 *   1..4   int32  security id
 *   5..8   int32  duplicate of the security id
 *   9      uint8  length of the entire packet (header included)
 *   10     uint8  message code
 */

/** Numeric exchange segment of INX_EQ, the only segment of this feed. */
export const SEGMENT_INX_EQ = 14;

export const MsgCode = {
  Trade: 1,
  Ohlc: 3,
  MarketStatus: 29,
  PrevClose: 32,
  CircuitLimit: 33,
  Week52: 36,
  Error: 50,
} as const;
export type MsgCodeValue = (typeof MsgCode)[keyof typeof MsgCode];

export const HEADER_SIZE = 11;

/** Fixed total size (header included) of each known packet; the fallback when a length byte is under 11. */
export const PACKET_SIZE: Readonly<Record<MsgCodeValue, number>> = Object.freeze({
  [MsgCode.Trade]: 27,
  [MsgCode.Ohlc]: 27,
  [MsgCode.MarketStatus]: 18,
  [MsgCode.PrevClose]: 15,
  [MsgCode.CircuitLimit]: 19,
  [MsgCode.Week52]: 19,
  [MsgCode.Error]: 13,
});

/**
 * Fixed size by code as a 256-entry table (0 = unknown code): one indexed load on the decode path
 * instead of a property lookup on a record with numeric keys.
 */
export const FIXED_SIZE_BY_CODE: Readonly<Uint8Array> = (() => {
  const table = new Uint8Array(256);
  for (const [code, size] of Object.entries(PACKET_SIZE)) table[Number(code)] = size;
  return table;
})();

/** Disconnection codes carried by Error packets, with their meanings from the spec. */
export type FeedErrorCode = 805 | 806 | 807 | 808 | 809;
export const FEED_ERROR_CODES: Readonly<Record<FeedErrorCode, string>> = Object.freeze({
  805: 'connection limit exceeded',
  806: 'payment not done for broadcast',
  807: 'token expired',
  808: 'authentication failure',
  809: 'invalid token',
});

export function isFeedErrorCode(code: number): code is FeedErrorCode {
  return code === 805 || code === 806 || code === 807 || code === 808 || code === 809;
}

/** Byte offsets inside a packet (header and payloads), shared by the encoder and the decoders. */
export const Offset = {
  segment: 0,
  securityId: 1,
  securityIdCopy: 5,
  length: 9,
  code: 10,
  /** First payload byte: float32 or int32 field 0 (LTP, open, prev close, upper, 52-week high). */
  field0: 11,
  field1: 15,
  field2: 19,
  field3: 23,
  /** Market Status: three MarketType bytes at 11..13, then int32 MarketStatus at 14..17. */
  marketType: 11,
  marketStatus: 14,
  /** Error: int16 disconnection code at 11..12. */
  errorCode: 11,
} as const;
