/**
 * `file`: the operator's own tooling keeps a token in a file; it is re-read when it changes (checked
 * every poll by size, mtime and inode, which also sees a Kubernetes secret's symlink swap). After a
 * refusal the file is awaited for a bounded time, for the tooling to put a fresh token there.
 */
import { statSync } from 'node:fs';
import { type Clock, systemClock } from '@feedpipe/broker-api';
import { CredentialsError } from '../errors.js';
import { readSecretFile } from '../secret-value.js';
import { expiryOf, type IssuedToken, type TokenIssuer } from './issuer.js';

export class FileIssuer implements TokenIssuer {
  readonly kind = 'file' as const;
  readonly canRenew = true;
  readonly #path: string;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #clock: Clock;
  #seen = '';

  /** `waitMs`: how long a refused token waits for a new file content before it is given up. */
  constructor(path: string, options: { waitMs: number; pollMs: number; clock?: Clock }) {
    this.#path = path;
    this.#waitMs = options.waitMs;
    this.#pollMs = options.pollMs;
    this.#clock = options.clock ?? systemClock;
  }

  async first(): Promise<IssuedToken> {
    this.#seen = this.#signature();
    return this.#read();
  }

  poll(current: IssuedToken): IssuedToken | undefined {
    const signature = this.#signature();
    if (signature === this.#seen) return undefined;
    this.#seen = signature;
    try {
      const read = this.#read();
      return read.accessToken === current.accessToken ? undefined : read;
    } catch {
      // Caught mid-write or briefly absent: the next poll looks again.
      this.#seen = '';
      return undefined;
    }
  }

  async next(current: IssuedToken): Promise<IssuedToken> {
    const deadline = this.#clock.now() + this.#waitMs;
    for (;;) {
      this.#seen = '';
      const fresh = this.poll(current);
      if (fresh !== undefined) return fresh;
      if (this.#clock.now() >= deadline) break;
      await this.#clock.sleep(this.#pollMs);
    }
    throw new CredentialsError(
      'RENEWAL_FAILED',
      `the token in SVC_ACCESS_TOKEN_FILE (${this.#path}) was refused and no new one appeared within ${Math.round(this.#waitMs / 1000)} s`,
    );
  }

  #read(): IssuedToken {
    const accessToken = readSecretFile(this.#path, 'SVC_ACCESS_TOKEN_FILE');
    return { accessToken, expiresAt: expiryOf(accessToken, undefined, this.#clock.now()) };
  }

  #signature(): string {
    try {
      const s = statSync(this.#path);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return 'absent';
    }
  }
}
