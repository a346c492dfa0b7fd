/**
 * The ingestor's own downtime, for the ledger of gaps: a small file that says when this run was last
 * alive (rewritten every `intervalMs`), when it stopped (on a clean stop) and which instruments it
 * held. The next start reads it and records the time in between as `process_stopped` gaps of those
 * instruments (gap-tracker.ts). After a crash the last "alive" time stands for the stop, so the gap
 * is known to within `intervalMs`.
 *
 * Written to a temporary file and renamed over the old one, so a crash mid-write leaves the
 * previous state, never half of one. One write at a time; a failed write is reported, not fatal.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
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

const isIdList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The previous run's downtime start and instruments, or undefined when there is no usable file. */
export function readPreviousRun(path: string, log: (message: string) => void): PreviousRun | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const state = JSON.parse(text) as Partial<StateFile>;
    const stopped = typeof state.stoppedAtMs === 'number' ? state.stoppedAtMs : state.aliveAtMs;
    if (typeof stopped !== 'number' || !isIdList(state.trade) || !isIdList(state.ohlc))
      throw new Error('fields');
    return { stoppedAtMs: stopped, trade: new Set(state.trade), ohlc: new Set(state.ohlc) };
  } catch {
    log(`run state ${path} is unreadable; the downtime before this start is not in the ledger of gaps`);
    return undefined;
  }
}

export class RunState {
  readonly #o: RunStateOptions;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failures = 0;

  constructor(options: RunStateOptions) {
    this.#o = options;
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
    this.#writing = this.#writing.then(async () => {
      const held = this.#o.held();
      const state: StateFile = {
        version: 1,
        aliveAtMs: stoppedAtMs ?? Date.now(),
        stoppedAtMs,
        trade: [...held.trade],
        ohlc: [...held.ohlc],
      };
      const temporary = `${this.#o.path}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(state));
        await rename(temporary, this.#o.path);
      } catch (error) {
        // The first failure says why; the ledger then misses at most this run's downtime.
        if (this.#failures++ === 0)
          this.#o.log(`run state ${this.#o.path} cannot be written (${(error as Error).message})`);
      }
    });
    return this.#writing;
  }
}
