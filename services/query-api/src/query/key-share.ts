/**
 * Each key's share of the engine's sessions for caller SQL. Embedded chDB runs callers' statements
 * on a few sessions (two on the 2-core machine); without a share, one key sending two slow queries
 * held both and every other key's query waited behind them until it timed out. A key may run
 * `perKey` statements at once (sessions - 1, at least 1), so at least one session is always left to
 * the other keys; its further statements wait in its own line, in arrival order, bounded in length
 * and in time (429 RATE_LIMITED with Retry-After past either bound). The line is per key, so a key's
 * waiting statements never delay another key's.
 */
import { QueryApiError } from '../errors.js';

export interface KeyShareLimits {
  /** Statements one key may run at once. */
  perKey: number;
  /** Statements one key may have waiting for its share. */
  maxWaiting: number;
  /** How long a statement may wait for its key's share. */
  maxWaitMs: number;
}

interface KeyLine {
  running: number;
  waiting: Array<() => void>;
}

function refused(message: string): QueryApiError {
  return new QueryApiError('RATE_LIMITED', message, { retryable: true, retryAfterSec: 1 });
}

export class KeyShare {
  readonly limits: Readonly<KeyShareLimits>;
  readonly #lines = new Map<string, KeyLine>();

  constructor(limits: KeyShareLimits) {
    this.limits = limits;
  }

  /** Statements `keyId` runs now (for tests and metrics). */
  running(keyId: string): number {
    return this.#lines.get(keyId)?.running ?? 0;
  }

  /** Waits for one of the key's shares; resolves to its release (idempotent). */
  async acquire(keyId: string): Promise<() => void> {
    const line = this.#lines.get(keyId) ?? { running: 0, waiting: [] };
    this.#lines.set(keyId, line);
    if (line.running < this.limits.perKey) {
      line.running += 1;
      return this.#release(keyId, line);
    }
    if (line.waiting.length >= this.limits.maxWaiting) {
      throw refused(
        `this key already runs ${this.limits.perKey} SQL statements and has ${line.waiting.length} waiting; retry when one has finished`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = line.waiting.indexOf(admit);
        if (index !== -1) line.waiting.splice(index, 1);
        reject(
          refused(
            `this key's SQL statements took the key's whole share of the engine for ${this.limits.maxWaitMs} ms; retry when one has finished`,
          ),
        );
      }, this.limits.maxWaitMs);
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      line.waiting.push(admit);
    });
    return this.#release(keyId, line);
  }

  #release(keyId: string, line: KeyLine): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.waiting.shift();
      // The share passes straight to the key's next statement; `running` stays as it is.
      if (next !== undefined) {
        next();
        return;
      }
      line.running -= 1;
      if (line.running === 0) this.#lines.delete(keyId);
    };
  }
}
