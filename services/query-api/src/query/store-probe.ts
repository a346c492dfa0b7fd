/**
 * Store health for /readyz, probed in the background: one `SELECT 1` through the pipeline's lane
 * every `intervalMs`, never two at once. The route reads the last outcome and never waits on the
 * store, so a readiness check cannot queue behind a query, and a store that stops answering is
 * seen as not ready once the probe in flight is older than `staleAfterMs`.
 */
import type { Store } from '@feedpipe/store';

export interface StoreHealth {
  ok: boolean;
  /** When the last probe finished (epoch ms), 0 before the first. */
  checkedAt: number;
  /** Why not ok. */
  reason?: string;
}

export class StoreProbe {
  readonly #store: Store;
  readonly #intervalMs: number;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #inFlightSince = 0;
  #last: StoreHealth = { ok: false, checkedAt: 0, reason: 'the store has not been probed yet' };

  constructor(
    store: Store,
    options: { intervalMs?: number; staleAfterMs?: number; now?: () => number } = {},
  ) {
    this.#store = store;
    this.#intervalMs = options.intervalMs ?? 5_000;
    this.#staleAfterMs = options.staleAfterMs ?? 15_000;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    if (this.#timer) return;
    this.#probe();
    this.#timer = setInterval(() => this.#probe(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The cached outcome; not ok when a probe has been pending longer than `staleAfterMs`. */
  health(): StoreHealth {
    if (this.#inFlightSince > 0 && this.#now() - this.#inFlightSince > this.#staleAfterMs) {
      return {
        ok: false,
        checkedAt: this.#last.checkedAt,
        reason: `the store has not answered a probe for ${this.#now() - this.#inFlightSince} ms`,
      };
    }
    return { ...this.#last };
  }

  #probe(): void {
    if (this.#inFlightSince > 0) return;
    this.#inFlightSince = this.#now();
    this.#store.internal
      .rows<{ ok: number | string }>('SELECT 1 AS ok')
      .then(
        (rows) => {
          this.#last =
            rows.length === 1 && Number(rows[0]?.ok) === 1
              ? { ok: true, checkedAt: this.#now() }
              : { ok: false, checkedAt: this.#now(), reason: 'the store answered the probe wrongly' };
        },
        () => {
          this.#last = { ok: false, checkedAt: this.#now(), reason: 'the store failed the probe' };
        },
      )
      .finally(() => {
        this.#inFlightSince = 0;
      });
  }
}
