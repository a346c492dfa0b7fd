// Hand-written packets of every type, byte for byte as the spec lays them out (little-endian).
// Header: segment | security id (4) | security id copy (4) | length | code.

export function hex(text: string): Uint8Array {
  const bytes = text
    .trim()
    .split(/\s+/)
    .map((pair) => Number.parseInt(pair, 16));
  return Uint8Array.from(bytes);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Trade 14/12345: LTP 123.45 (0x42f6e666), volume 1000, LTT 1700000000, LUT 1700000001. */
export const TRADE = hex('0e 39 30 00 00 39 30 00 00 1b 01 66 e6 f6 42 e8 03 00 00 00 f1 53 65 01 f1 53 65');
/** OHLC 14/12345: open 100.5, close 101.25, high 102.75, low 99.5 (wire order open, close, high, low). */
export const OHLC = hex('0e 39 30 00 00 39 30 00 00 1b 03 00 00 c9 42 00 80 ca 42 00 80 cd 42 00 00 c7 42');
/** Market Status 14/0: MarketType 1, 2, 3; status 5. */
export const MARKET_STATUS = hex('0e 00 00 00 00 00 00 00 00 12 1d 01 02 03 05 00 00 00');
/** Previous Close 14/12345: 120.1. */
export const PREV_CLOSE = hex('0e 39 30 00 00 39 30 00 00 0f 20 33 33 f0 42');
/** Circuit Limit 14/12345: upper 132.11, lower 108.09. */
export const CIRCUIT_LIMIT = hex('0e 39 30 00 00 39 30 00 00 13 21 29 1c 04 43 14 2e d8 42');
/** 52-Week 14/12345: high 150, low 80.25. */
export const WEEK52 = hex('0e 39 30 00 00 39 30 00 00 13 24 00 00 16 43 00 80 a0 42');
/** Error: segment 0, ids 0, length 13, code 50, disconnection code 807 (token expired). */
export const ERROR_807 = hex('00 00 00 00 00 00 00 00 00 0d 32 27 03');
/** Zero-filled Circuit Limit ("no data yet"): security id 0 and 0.00 values. */
export const ZERO_CIRCUIT_LIMIT = hex('00 00 00 00 00 00 00 00 00 13 21 00 00 00 00 00 00 00 00');

/** A copy of `packet` with byte 9 (length) replaced. */
export function withLength(packet: Uint8Array, length: number): Uint8Array {
  const copy = packet.slice();
  copy[9] = length;
  return copy;
}

/** A copy of `packet` with byte 10 (code) replaced. */
export function withCode(packet: Uint8Array, code: number): Uint8Array {
  const copy = packet.slice();
  copy[10] = code;
  return copy;
}
