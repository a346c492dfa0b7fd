/**
 * The universe files watched while the ingestor runs: every `intervalMs` each file's size and
 * modification time are looked at; when they changed, the file is read again and its instruments
 * become the universe of its kind (LiveSubscriptions.setUniverse: the difference is subscribed and
 * unsubscribed, within the feed's limits). Polling, not fs.watch: an editor or a deployment that
 * replaces the file by a rename is seen the same way, on every filesystem.
 *
 * A file that cannot be read, does not parse or would not fit changes nothing: the subscriptions
 * stay as they are, the reason is said once per content, and the next edit is tried again.
 */
import { statSync } from 'node:fs';
import type { SubscriptionKind } from '../feed/subscription-book.js';
import { readUniverseIds } from './universe-file.js';

export interface UniverseWatchOptions {
  files: Partial<Record<SubscriptionKind, string>>;
  /** How often the files are looked at. Default 2 000 ms. */
  intervalMs?: number;
  /** The universe of `kind` is now `ids`; throws when the change is refused. */
  apply: (kind: SubscriptionKind, ids: string[]) => void;
  log: (message: string) => void;
}

interface Watched {
  kind: SubscriptionKind;
  path: string;
  /** Size and modification time last seen ('' before the first look). */
  seen: string;
}

function signatureOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

export class UniverseWatch {
  readonly #o: UniverseWatchOptions;
  readonly #watched: Watched[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(options: UniverseWatchOptions) {
    this.#o = options;
    for (const kind of ['trade', 'ohlc'] as const) {
      const path = options.files[kind];
      // The content at start was read with the configuration: only later edits are changes.
      if (path) this.#watched.push({ kind, path, seen: signatureOf(path) });
    }
  }

  start(): void {
    if (this.#watched.length === 0) return;
    this.#timer = setInterval(() => this.check(), this.#o.intervalMs ?? 2_000);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look at every file (the timer's work; public for tests). */
  check(): void {
    for (const watched of this.#watched) {
      const signature = signatureOf(watched.path);
      if (signature === watched.seen) continue;
      watched.seen = signature;
      if (signature === 'missing') {
        this.#o.log(`universe file ${watched.path} is gone; ${watched.kind} subscriptions unchanged`);
        continue;
      }
      try {
        this.#o.apply(watched.kind, readUniverseIds(watched.path));
      } catch (error) {
        this.#o.log(
          `universe file ${watched.path} not applied (${(error as Error).message}); ${watched.kind} subscriptions unchanged`,
        );
      }
    }
  }
}
