import type { FeedRecord } from '@feedpipe/contracts';
import { MsgCode, Offset } from '../wire/constants.js';
import { isNoDataYet } from '../wire/no-data-yet.js';
import type { DecodeCounters } from './counters.js';
import { PacketCursor } from './packet-cursor.js';

/**
 * The current packet of `cursor` as a plain record (one object per packet: for tools and tests).
 * Reads through the cursor's DataView at the packet offset rather than the named getters, which
 * TurboFan would stop inlining after a dozen in one function (its inlining budget is cumulative);
 * the cursor has already checked that the code's whole fixed layout lies inside the frame.
 */
export function cursorRecord(cursor: PacketCursor): FeedRecord {
  const view = cursor.dataView;
  const at = cursor.packetStart;
  const segment = view.getUint8(at + Offset.segment);
  const securityId = view.getInt32(at + Offset.securityId, true);
  switch (cursor.code) {
    case MsgCode.Trade:
      return {
        type: 'trade',
        segment,
        securityId,
        ltp: view.getFloat32(at + Offset.field0, true),
        volume: view.getInt32(at + Offset.field1, true),
        ltt: view.getInt32(at + Offset.field2, true),
        lut: view.getInt32(at + Offset.field3, true),
      };
    case MsgCode.Ohlc:
      return {
        type: 'ohlc',
        segment,
        securityId,
        open: view.getFloat32(at + Offset.field0, true),
        close: view.getFloat32(at + Offset.field1, true),
        high: view.getFloat32(at + Offset.field2, true),
        low: view.getFloat32(at + Offset.field3, true),
      };
    default:
      return rareRecord(cursor, segment, securityId);
  }
}

/** Reference, status and error packets: rare, so outside the hot function. */
function rareRecord(cursor: PacketCursor, segment: number, securityId: number): FeedRecord {
  switch (cursor.code) {
    case MsgCode.PrevClose:
      return { type: 'prev_close', segment, securityId, prevClose: cursor.prevClose };
    case MsgCode.CircuitLimit:
      return { type: 'circuit_limit', segment, securityId, upper: cursor.upper, lower: cursor.lower };
    case MsgCode.Week52:
      return { type: 'week52', segment, securityId, high: cursor.week52High, low: cursor.week52Low };
    case MsgCode.MarketStatus:
      return {
        type: 'market_status',
        segment,
        securityId,
        marketType: [cursor.marketType(0), cursor.marketType(1), cursor.marketType(2)],
        status: cursor.marketStatus,
      };
    default:
      // The cursor only stops on known codes, so the remaining one is Error.
      return { type: 'error', segment, securityId, code: cursor.errorCode };
  }
}

// Safe to share: decodeFrameToRecords runs to completion without calling out, so no caller can
// observe or re-enter it midway.
const shared = new PacketCursor();

export interface DecodeRecordsOptions {
  /**
   * Also return "no data yet" packets (wire/no-data-yet.ts) as records, for tools that show the
   * wire as sent (the simulator's own tests). Default false: like decodeFramesToColumns, they
   * yield no record and are counted in `noDataYet`.
   */
  readonly keepNoDataYet?: boolean;
}

/**
 * Decodes one frame into plain records, following the frame rules; never throws on bad bytes.
 * Adds what it saw to `counters` when given.
 */
export function decodeFrameToRecords(
  frame: Uint8Array,
  counters?: DecodeCounters,
  options: DecodeRecordsOptions = {},
): FeedRecord[] {
  const cursor = shared;
  const keep = options.keepNoDataYet === true;
  cursor.resetCounters();
  cursor.reset(frame);
  const records: FeedRecord[] = [];
  let noDataYet = 0;
  while (cursor.next()) {
    if (!keep && isNoDataYet(cursor.code, cursor.securityId)) noDataYet++;
    else records.push(cursorRecord(cursor));
  }
  if (counters !== undefined) {
    cursor.addCountersTo(counters);
    counters.noDataYet += noDataYet;
  }
  return records;
}
