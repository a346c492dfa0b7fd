import type { Writable } from 'node:stream';
import { readCapture } from '../capture/reader.js';
import type { DecodeCounters } from '../decode/counters.js';
import { PacketCursor } from '../decode/packet-cursor.js';
import { cursorRecord } from '../decode/records.js';
import { recordToJson } from '../json/record-json.js';
import { MsgCode, type MsgCodeValue } from '../wire/constants.js';
import { RECORD_TYPE_BY_CODE } from '../wire/record-types.js';
import { BufferedOutput } from './output.js';

export interface DecodeSummary {
  frames: number;
  packets: number;
  byType: Record<string, number>;
  malformed: number;
  unknown: number;
}

/**
 * `feed-codec decode <capture>`: one JSON record per line on `out`, in the stable shape plus
 * `receivedAt` (the frame's receive time, epoch microseconds) and `frame` (the frame's ordinal in the
 * capture, so `encode` can rebuild the same frames). Returns the summary the CLI prints on stderr.
 */
export async function decodeCapture(path: string, out: Writable): Promise<DecodeSummary> {
  const output = new BufferedOutput(out);
  const cursor = new PacketCursor();
  let frame = 0;
  for await (const { payload, receivedAtMicros } of readCapture(path)) {
    const suffix = `,"receivedAt":${receivedAtMicros},"frame":${frame}}`;
    cursor.reset(payload);
    while (cursor.next()) {
      const json = recordToJson(cursorRecord(cursor));
      await output.write(`${json.slice(0, -1)}${suffix}\n`);
    }
    frame++;
  }
  await output.flush();
  return summarise(cursor.counters);
}

export function summarise(counters: DecodeCounters): DecodeSummary {
  const byType: Record<string, number> = {};
  for (const code of Object.values(MsgCode)) {
    byType[RECORD_TYPE_BY_CODE[code as MsgCodeValue]] = counters.byCode[code] ?? 0;
  }
  return {
    frames: counters.frames,
    packets: counters.packets,
    byType,
    malformed: counters.malformed,
    unknown: counters.unknown,
  };
}
