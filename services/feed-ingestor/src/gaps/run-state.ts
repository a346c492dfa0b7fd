/**
 * The ingestor's own downtime, for the ledger of gaps: a small file that says when this run was last
 * alive (rewritten every `intervalMs`), when it stopped (on a clean stop) and which instruments it
 * held. The next start reads it and records the time in between as `process_stopped` gaps of those
 * instruments (gap-tracker.ts). After a crash the last "alive" time stands for the stop, so the gap
 * is known to within `intervalMs`.
 *
 * Written to a temporary file and renamed over the old one, so a crash mid-write leaves the
 * previous state, never half of one. One write at a time; a failed write is reported, not fatal
 * (json-file.ts).
 *
 * A clean stop also writes the connections' quantity bases (pipeline/quantity-bases.ts), once the
 * pipeline has drained: every trade produced is in them, so the next start's first trades reckon
 * from where this run's stopped (`readStoppedBases`). Only the stop writes them: an "alive" note is
 * up to `intervalMs` old, and after a crash the write-ahead log holds only what Kafka had not
 * acknowledged, so neither says what the last trade produced was.
 */
import { isIdList, JsonFileWriter, readJsonFile } from '../json-file.js';
import type { BaseEntry } from '../pipeline/quantity-bases.js';
import type { PreviousRun } from './gap-tracker.js';

interface StateFile {
  version: 1;
  aliveAtMs: number;
  stoppedAtMs: number | null;
  trade: string[];
  ohlc: string[];
  /** With a clean stop: every connection's quantity bases as the drained pipeline left them. */
  bases?: BaseEntry[];
}

export interface RunStateOptions {
  path: string;
  /** The instruments held now. */
  held: () => { trade: readonly string[]; ohlc: readonly string[] };
  /** The quantity bases to write with the stop (after the pipeline drained); unset: none written. */
  bases?: () => BaseEntry[];
  /** How often "alive" is written. Default 5 000 ms. */
  intervalMs?: number;
  log: (message: string) => void;
}

/** The previous run's downtime start and instruments, or undefined when there is no usable file. */
export function readPreviousRun(path: string, log: (message: string) => void): PreviousRun | undefined {
  const read = readJsonFile(path);
  if (read === 'missing') return undefined;
  const state = (read === 'unreadable' ? {} : read.value) as Partial<StateFile>;
  const stopped = typeof state.stoppedAtMs === 'number' ? state.stoppedAtMs : state.aliveAtMs;
  if (typeof stopped === 'number' && isIdList(state.trade) && isIdList(state.ohlc))
    return { stoppedAtMs: stopped, trade: new Set(state.trade), ohlc: new Set(state.ohlc) };
  log(`run state ${path} is unreadable; the downtime before this start is not in the ledger of gaps`);
  return undefined;
}

const isBaseEntry = (v: unknown): v is BaseEntry =>
  Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/**
 * The quantity bases a clean stop wrote, by security id; undefined when the previous run crashed
 * (no stop time), wrote none, or the file is missing or unreadable.
 */
export function readStoppedBases(path: string): ReadonlyMap<number, BaseEntry> | undefined {
  const read = readJsonFile(path);
  if (read === 'missing' || read === 'unreadable') return undefined;
  const state = read.value as Partial<StateFile>;
  if (typeof state.stoppedAtMs !== 'number' || !Array.isArray(state.bases)) return undefined;
  if (!state.bases.every(isBaseEntry)) return undefined;
  return new Map(state.bases.map((entry) => [entry[0], entry]));
}

export class RunState {
  readonly #o: RunStateOptions;
  readonly #writer: JsonFileWriter;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RunStateOptions) {
    this.#o = options;
    this.#writer = new JsonFileWriter(options.path, 'run state', options.log);
  }

  start(): void {
    void this.#write(null);
    this.#timer = setInterval(() => void this.#write(null), this.#o.intervalMs ?? 5_000);
    this.#timer.unref();
  }

  /** Writes the stop time; resolves once it is on disk (or failed). */
  async stop(atMs: number): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#write(atMs);
  }

  #write(stoppedAtMs: number | null): Promise<void> {
    return this.#writer.write((): StateFile => {
      const held = this.#o.held();
      const bases = stoppedAtMs === null ? undefined : this.#o.bases?.();
      return {
        version: 1,
        aliveAtMs: stoppedAtMs ?? Date.now(),
        stoppedAtMs,
        trade: [...held.trade],
        ohlc: [...held.ohlc],
        ...(bases ? { bases } : {}),
      };
    });
  }
}
