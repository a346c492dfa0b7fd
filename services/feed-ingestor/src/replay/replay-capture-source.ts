/**
 * A capture file as replay groups: each frame in the time range decoded into plain records (one
 * object per packet: a replay is an operator's tool, paced, not the live hot path), identified by
 * the frame's index in the whole file and the packet's index in the frame (replay-identity.ts), so
 * a record's identity does not depend on where the range starts. Malformed and unknown packets
 * are counted and skipped, as the live decoder does; so are the feed's "no data yet" packets.
 */
import { decodeFrameToRecords, newDecodeCounters, readCapture } from '@feedpipe/codec';
import { captureIdentity, captureRun } from './replay-identity.js';
import { inRange, type ReplayRange } from './replay-range.js';
import { RepeatedTrades, type ReplayGroup, type ReplaySourceCounts } from './replay-record.js';

export async function* captureGroups(
  file: string,
  range: ReplayRange,
  counts: ReplaySourceCounts,
): AsyncGenerator<ReplayGroup> {
  const repeats = new RepeatedTrades();
  const decoded = newDecodeCounters();
  let run: number | undefined;
  let frameIndex = -1;
  for await (const frame of readCapture(file)) {
    frameIndex += 1;
    counts.read += 1;
    run ??= captureRun(frame.receivedAtMicros, frame.payload);
    const micros = Number(frame.receivedAtMicros);
    if (!inRange(range, micros)) {
      counts.outOfRange += 1;
      continue;
    }
    const malformedBefore = decoded.malformed + decoded.unknown;
    const records = decodeFrameToRecords(frame.payload, decoded);
    counts.malformed += decoded.malformed + decoded.unknown - malformedBefore;
    const group: ReplayGroup = { receivedAtMicros: micros, records: [] };
    records.forEach((record, packetIndex) => {
      if (repeats.isRepeat(record)) counts.repeats += 1;
      else group.records.push({ record, identity: captureIdentity(run as number, frameIndex, packetIndex) });
    });
    if (group.records.length > 0) yield group;
  }
}
