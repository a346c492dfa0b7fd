/**
 * Reads what earlier runs left in the write-ahead log: per (run, connection) stream, the chunks still
 * in its segments, each with its exact frames (segment-layout.ts), and which of them Kafka had
 * acknowledged. A segment's frames are
 * capture records back to back, which is the layout of a decode pack, so a chunk's pack is a view of
 * the file's bytes, not a copy.
 *
 * A crash can cut the last record of a segment or the last ledger entry in half: the torn part is
 * ignored (it was never handed on whole), and a chunk cut short is replayed as the prefix it is,
 * which keeps the source identities of its rows.
 */
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTURE_MAGIC, CAPTURE_RECORD_HEADER_SIZE } from '@feedpipe/codec';
import { IngestorError } from '../errors.js';
import {
  LEDGER_ACKED,
  LEDGER_ENTRY_BYTES,
  LEDGER_SEALED,
  ledgerFileOf,
  parseSegmentName,
  type SegmentName,
} from './segment-layout.js';

export interface WalChunk {
  run: number;
  connection: number;
  sequence: number;
  /** Capture records back to back: a decode pack. */
  pack: Uint8Array;
  frames: number;
}

export interface WalStream {
  run: number;
  connection: number;
  /** Every chunk still in the segments, in order. */
  chunks: WalChunk[];
  /** Kafka acknowledged every chunk up to this sequence (-1: none known). */
  ackedThrough: number;
  /** When the stream's newest segment was last written (epoch ms), to order the runs. */
  modifiedAt: number;
  /** Every file of the stream, deleted once its chunks are in Kafka. */
  files: string[];
}

interface Segment extends SegmentName {
  framesPath: string;
  ledgerPath: string;
}

/** Byte offsets of each whole record of a segment, plus the end of the last one. */
function recordBounds(bytes: Uint8Array, path: string): number[] {
  for (let i = 0; i < CAPTURE_MAGIC.length; i++) {
    // A file cut before its magic was complete holds nothing; any other start is not ours.
    if (i >= bytes.length) return [bytes.length];
    if (bytes[i] !== CAPTURE_MAGIC[i])
      throw new IngestorError('WAL_IO_FAILED', `feed log: ${path} is not a capture segment`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bounds = [CAPTURE_MAGIC.length];
  let at = CAPTURE_MAGIC.length;
  while (at + CAPTURE_RECORD_HEADER_SIZE <= bytes.length) {
    const end = at + CAPTURE_RECORD_HEADER_SIZE + view.getUint32(at, true);
    if (end > bytes.length) break;
    bounds.push(end);
    at = end;
  }
  return bounds;
}

function readLedger(path: string): { sealed: number[]; acked: number } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return { sealed: [], acked: -1 };
  }
  const sealed: number[] = [];
  let acked = -1;
  for (let at = 0; at + LEDGER_ENTRY_BYTES <= bytes.length; at += LEDGER_ENTRY_BYTES) {
    const kind = bytes.readUInt32LE(at);
    const value = bytes.readUInt32LE(at + 4);
    if (kind === LEDGER_SEALED) sealed.push(value);
    else if (kind === LEDGER_ACKED) acked = Math.max(acked, value);
  }
  return { sealed, acked };
}

/** The chunks of one segment: one per sealed entry, then the unsealed rest (the chunk being filled). */
function chunksOf(segment: Segment, sealed: readonly number[]): WalChunk[] {
  const bytes = readFileSync(segment.framesPath);
  const bounds = recordBounds(bytes, segment.framesPath);
  const frames = bounds.length - 1;
  const chunks: WalChunk[] = [];
  let frame = 0;
  const take = (count: number, sequence: number) => {
    const n = Math.min(count, frames - frame);
    if (n <= 0) return;
    const start = bounds[frame] as number;
    const end = bounds[frame + n] as number;
    chunks.push({
      run: segment.run,
      connection: segment.connection,
      sequence,
      pack: bytes.subarray(start, end),
      frames: n,
    });
    frame += n;
  };
  sealed.forEach((count, i) => {
    take(count, segment.firstChunk + i);
  });
  take(frames - frame, segment.firstChunk + sealed.length);
  return chunks;
}

/** A file that is gone: its owner removed it since the directory was listed. */
function vanished(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Runs `read`, or answers undefined when the file it reads vanished. A live process trims its own
 * log while another reads it (a handover's successor replaying the leader's directory as the leader
 * finishes): a segment is deleted only once Kafka acknowledged all of it, so one gone has nothing
 * left to replay.
 */
function unlessVanished<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (vanished(error)) return undefined;
    throw error;
  }
}

/**
 * Every stream in `dir`, least recently written first; an empty list for a missing directory. The
 * directory may be another process's, trimmed while it is read: segments deleted meanwhile are
 * left out (see unlessVanished).
 */
export function readWalStreams(dir: string): WalStream[] {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  const byStream = new Map<string, Segment[]>();
  for (const file of files) {
    const name = parseSegmentName(file);
    // Only regular files are ours (a device or a link under our name is not read: it may not end).
    if (!name || !unlessVanished(() => lstatSync(join(dir, file)).isFile())) continue;
    const key = `${name.run}/${name.connection}`;
    const list = byStream.get(key) ?? [];
    list.push({ ...name, framesPath: join(dir, file), ledgerPath: join(dir, ledgerFileOf(file)) });
    byStream.set(key, list);
  }
  const streams: WalStream[] = [];
  for (const segments of byStream.values()) {
    segments.sort((a, b) => a.firstChunk - b.firstChunk);
    const first = segments[0] as Segment;
    let acked = -1;
    const chunks: WalChunk[] = [];
    for (const segment of segments) {
      const ledger = readLedger(segment.ledgerPath);
      acked = Math.max(acked, ledger.acked);
      chunks.push(...(unlessVanished(() => chunksOf(segment, ledger.sealed)) ?? []));
    }
    const last = segments[segments.length - 1] as Segment;
    const modifiedAt = unlessVanished(() => statSync(last.framesPath).mtimeMs);
    // Its newest segment is gone: the owner removed the whole stream, all of it in Kafka.
    if (modifiedAt === undefined) continue;
    streams.push({
      run: first.run,
      connection: first.connection,
      chunks,
      ackedThrough: acked,
      modifiedAt,
      files: segments.flatMap((s) => [s.framesPath, s.ledgerPath]),
    });
  }
  // Oldest run first: its last trades are overtaken by a later run's in the repeat guard.
  return streams.sort((a, b) => a.modifiedAt - b.modifiedAt);
}

export function removeStream(stream: WalStream): void {
  for (const file of stream.files) rmSync(file, { force: true });
}
