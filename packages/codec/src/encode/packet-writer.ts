import { CodecError } from '../errors.js';
import { MsgCode, Offset, PACKET_SIZE } from '../wire/constants.js';
import { checkFloat, checkInt16, checkInt32, checkUint8 } from './field-checks.js';

// Low-level packet writers: each validates its fields, writes one packet of the fixed size at `at`
// (an absolute offset into `view`) and returns the offset after it. The caller guarantees room.
// Every writer checks all fields before it sets the first byte, so a bad value never leaves a
// half-written packet behind. Every packet carries its true length in byte 9.

function writeHeader(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  length: number,
  code: number,
): void {
  checkUint8('segment', segment);
  checkInt32('securityId', securityId);
  view.setUint8(at + Offset.segment, segment);
  view.setInt32(at + Offset.securityId, securityId, true);
  view.setInt32(at + Offset.securityIdCopy, securityId, true);
  view.setUint8(at + Offset.length, length);
  view.setUint8(at + Offset.code, code);
}

export function writeTrade(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  ltp: number,
  volume: number,
  ltt: number,
  lut: number,
): number {
  checkFloat('ltp', ltp);
  checkInt32('volume', volume);
  checkInt32('ltt', ltt);
  checkInt32('lut', lut);
  const size = PACKET_SIZE[MsgCode.Trade];
  writeHeader(view, at, segment, securityId, size, MsgCode.Trade);
  view.setFloat32(at + Offset.field0, ltp, true);
  view.setInt32(at + Offset.field1, volume, true);
  view.setInt32(at + Offset.field2, ltt, true);
  view.setInt32(at + Offset.field3, lut, true);
  return at + size;
}

export function writeOhlc(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  open: number,
  close: number,
  high: number,
  low: number,
): number {
  checkFloat('open', open);
  checkFloat('close', close);
  checkFloat('high', high);
  checkFloat('low', low);
  const size = PACKET_SIZE[MsgCode.Ohlc];
  writeHeader(view, at, segment, securityId, size, MsgCode.Ohlc);
  // Wire order is open, close, high, low (not the usual OHLC order).
  view.setFloat32(at + Offset.field0, open, true);
  view.setFloat32(at + Offset.field1, close, true);
  view.setFloat32(at + Offset.field2, high, true);
  view.setFloat32(at + Offset.field3, low, true);
  return at + size;
}

export function writePrevClose(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  prevClose: number,
): number {
  checkFloat('prevClose', prevClose);
  const size = PACKET_SIZE[MsgCode.PrevClose];
  writeHeader(view, at, segment, securityId, size, MsgCode.PrevClose);
  view.setFloat32(at + Offset.field0, prevClose, true);
  return at + size;
}

/** Circuit Limit (33) and 52-Week (36) share one layout: two float32 after the header. */
export function writeTwoFloats(
  view: DataView,
  at: number,
  code: typeof MsgCode.CircuitLimit | typeof MsgCode.Week52,
  segment: number,
  securityId: number,
  first: number,
  second: number,
): number {
  const names = code === MsgCode.CircuitLimit ? ['upper', 'lower'] : ['high', 'low'];
  checkFloat(names[0] ?? 'first', first);
  checkFloat(names[1] ?? 'second', second);
  const size = PACKET_SIZE[code];
  writeHeader(view, at, segment, securityId, size, code);
  view.setFloat32(at + Offset.field0, first, true);
  view.setFloat32(at + Offset.field1, second, true);
  return at + size;
}

export function writeMarketStatus(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  marketType: readonly [number, number, number],
  status: number,
): number {
  if (!Array.isArray(marketType) || marketType.length !== 3) {
    throw new CodecError('INVALID_RECORD', 'marketType must be an array of 3 bytes');
  }
  checkUint8('marketType[0]', marketType[0]);
  checkUint8('marketType[1]', marketType[1]);
  checkUint8('marketType[2]', marketType[2]);
  checkInt32('status', status);
  const size = PACKET_SIZE[MsgCode.MarketStatus];
  writeHeader(view, at, segment, securityId, size, MsgCode.MarketStatus);
  view.setUint8(at + Offset.marketType, marketType[0]);
  view.setUint8(at + Offset.marketType + 1, marketType[1]);
  view.setUint8(at + Offset.marketType + 2, marketType[2]);
  view.setInt32(at + Offset.marketStatus, status, true);
  return at + size;
}

export function writeError(
  view: DataView,
  at: number,
  segment: number,
  securityId: number,
  code: number,
): number {
  checkInt16('code', code);
  const size = PACKET_SIZE[MsgCode.Error];
  writeHeader(view, at, segment, securityId, size, MsgCode.Error);
  view.setInt16(at + Offset.errorCode, code, true);
  return at + size;
}
