/**
 * One line of the audit journal (audit-journal.ts):
 *
 *   <CRC-32 of the JSON's UTF-8 bytes, 8 lower-case hex digits> <space> <JSON> <\n>
 *
 * JSON text never holds a raw newline, so a line ends exactly at its `\n`. A line counts only whole
 * and with a matching CRC: a SIGKILL or a power cut mid-write leaves a torn last line, which the
 * reader stops at. That line was never synced, so no order was answered on it.
 */
import { crc32 } from 'node:zlib';

const CRC_DIGITS = 8;
const NEWLINE = 0x0a;
const SPACE = 0x20;

export type JournalTail = 'clean' | 'torn' | 'corrupt';

export function encodeJournalLine(value: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const crc = crc32(json).toString(16).padStart(CRC_DIGITS, '0');
  return Buffer.concat([Buffer.from(`${crc} `, 'latin1'), json, Buffer.from('\n', 'latin1')]);
}

/** The values of every whole, valid line from the start of `buf`, and how the buffer ends. */
export function decodeJournalLines(buf: Buffer): { values: unknown[]; tail: JournalTail } {
  const values: unknown[] = [];
  let at = 0;
  while (at < buf.length) {
    const end = buf.indexOf(NEWLINE, at);
    if (end < 0) return { values, tail: 'torn' };
    if (end - at <= CRC_DIGITS + 1 || buf[at + CRC_DIGITS] !== SPACE) return { values, tail: 'corrupt' };
    const crc = Number.parseInt(buf.toString('latin1', at, at + CRC_DIGITS), 16);
    const json = buf.subarray(at + CRC_DIGITS + 1, end);
    if (crc32(json) !== crc) return { values, tail: 'corrupt' };
    try {
      values.push(JSON.parse(json.toString('utf8')));
    } catch {
      return { values, tail: 'corrupt' };
    }
    at = end + 1;
  }
  return { values, tail: 'clean' };
}
