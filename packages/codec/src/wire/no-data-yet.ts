/**
 * "No data yet" packets (service-interface.md, Binary packets, rule 4): when a reference value is
 * not available yet, the service may send a zero-filled Circuit Limit or 52-Week packet with
 * security id 0, and sends the same packet type again with the instrument's id and values once it
 * has them. Such a packet names no instrument, so there is nothing to record against one: the
 * decoders that produce records (decodeFramesToColumns, decodeFrameToRecords) yield no row for it
 * and count it in `DecodeCounters.noDataYet` instead. Previous Close follows the same rule: a
 * reference value for security id 0 is never about an instrument either.
 *
 * Market Status and Error packets also carry security id 0, legitimately: they are about the
 * connection or the market, not an instrument, and are kept.
 */
import { MsgCode } from './constants.js';

/** 1 for the reference packet codes (a 256-entry table: one indexed load on the decode path). */
export const REFERENCE_CODE: Readonly<Uint8Array> = (() => {
  const table = new Uint8Array(256);
  for (const code of [MsgCode.PrevClose, MsgCode.CircuitLimit, MsgCode.Week52]) table[code] = 1;
  return table;
})();

/** Whether a packet of `code` for `securityId` (the header's first copy) is a "no data yet" packet. */
export function isNoDataYet(code: number, securityId: number): boolean {
  return securityId === 0 && REFERENCE_CODE[code & 0xff] === 1;
}
