/**
 * What the decoders saw. `packets` counts decoded packets of known codes and `byCode` splits them by
 * message code (so the byCode values sum to `packets`); `unknown` counts skipped packets of unknown
 * codes; `malformed` counts frames stopped early by a truncated header, a packet shorter than its
 * code's fields, a packet running past the end of the frame, or a zero length byte with data after
 * it. A zero length byte followed by zero padding only stops a frame without being counted (the
 * spec treats it as the end of the data); a reference packet zero-filled down to its length byte
 * (security id 0) is read at its code's size as a "no data yet" packet and the frame goes on. `noDataYet` counts the decoded
 * packets (included in `packets`) that yielded no record: the zero-filled reference packets of
 * wire/no-data-yet.ts.
 */
export interface DecodeCounters {
  frames: number;
  packets: number;
  malformed: number;
  unknown: number;
  noDataYet: number;
  byCode: Record<number, number>;
}

export function newDecodeCounters(): DecodeCounters {
  return { frames: 0, packets: 0, malformed: 0, unknown: 0, noDataYet: 0, byCode: {} };
}

export function addDecodeCounters(target: DecodeCounters, source: DecodeCounters): void {
  target.frames += source.frames;
  target.packets += source.packets;
  target.malformed += source.malformed;
  target.unknown += source.unknown;
  target.noDataYet += source.noDataYet;
  for (const [code, count] of Object.entries(source.byCode)) {
    target.byCode[Number(code)] = (target.byCode[Number(code)] ?? 0) + count;
  }
}
