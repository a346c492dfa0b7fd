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
 */
import { isIdList, JsonFileWriter, readJsonFile } from '../json-file.js';
import type { PreviousRun } from './gap-tracker.js';

interface StateFile {
  version: 1;
  aliveAtMs: number;
  stoppedAtMs: number | null;
  trade: string[];
  ohlc: string[];
}

export interface RunStateOptions {
  path: string;
  /** The instruments held now. */
  held: () => { trade: readonly string[]; ohlc: readonly string[] };
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
      return {
        version: 1,
        aliveAtMs: stoppedAtMs ?? Date.now(),
        stoppedAtMs,
        trade: [...held.trade],
        ohlc: [...held.ohlc],
      };
    });
  }
}
