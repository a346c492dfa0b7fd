/**
 * The small JSON files the ingestor keeps between runs (its run state, its subscription changes).
 * Written to a temporary file and renamed over the old one, one write at a time, so a crash
 * mid-write leaves the previous content, never half of it. A failed write is said once, not fatal:
 * what the file is for degrades (said by its owner), the feed goes on.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

/** The parsed content, `missing` when there is no file, `unreadable` when it is not JSON. */
export function readJsonFile(path: string): { value: unknown } | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return 'missing';
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'unreadable';
  }
}

export const isIdList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

export class JsonFileWriter {
  readonly path: string;
  readonly #what: string;
  readonly #log: (message: string) => void;
  #writing: Promise<void> = Promise.resolve();
  #failures = 0;

  /** `what` names the file in the message of a failed write ("run state", ...). */
  constructor(path: string, what: string, log: (message: string) => void) {
    this.path = path;
    this.#what = what;
    this.#log = log;
  }

  /** Writes `content()` (taken when its turn comes) after any write before it; resolves once done. */
  write(content: () => unknown): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      const temporary = `${this.path}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(content()));
        await rename(temporary, this.path);
      } catch (error) {
        if (this.#failures++ === 0)
          this.#log(`${this.#what} ${this.path} cannot be written (${(error as Error).message})`);
      }
    });
    return this.#writing;
  }
}
