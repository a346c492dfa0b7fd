/**
 * The renewal lease of one account: the process holding it renews and publishes the token; the
 * others read. It is a file naming its owner with a heartbeat time; a lease whose heartbeat is older
 * than the TTL belongs to a dead (or hung) process and is taken over.
 *
 * Creation is atomic (a complete temporary file hard-linked to the lease name: link fails if the
 * name exists). A takeover renames the stale lease aside and checks that what it moved is the stale
 * record it judged; if a faster process had already replaced it, that lease is linked back. Should
 * two processes still both believe they own it (a heartbeat later than the TTL), the next heartbeat
 * of each reads the file and the one not named there steps down; at worst one extra renewal happens,
 * and every reader then follows the newest published token.
 */
import { linkSync, renameSync, statSync, unlinkSync } from 'node:fs';
import type { LeaseRecord, SharedFiles } from './shared-files.js';

export class Lease {
  readonly #files: SharedFiles;
  readonly #owner: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #held = false;

  constructor(files: SharedFiles, owner: string, ttlMs: number, now: () => number = Date.now) {
    this.#files = files;
    this.#owner = owner;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get held(): boolean {
    return this.#held;
  }

  /** Takes the lease if it is free or stale; true when this process holds it afterwards. */
  tryAcquire(): boolean {
    if (this.#held) return this.heartbeat();
    const current = this.#files.readLease();
    if (current === undefined) {
      if (this.#corruptAndFresh()) return false;
      this.#held = this.#create() || this.#takeOver(undefined);
      return this.#held;
    }
    if (current.owner === this.#owner) {
      this.#held = true;
      return this.heartbeat();
    }
    if (this.#now() - current.heartbeatAt <= this.#ttlMs) return false;
    this.#held = this.#takeOver(current);
    return this.#held;
  }

  /** Renews the heartbeat; false (and the lease given up) when another process owns it now. */
  heartbeat(): boolean {
    const current = this.#files.readLease();
    if (current !== undefined && current.owner !== this.#owner) {
      this.#held = false;
      return false;
    }
    this.#files.writeAtomic(this.#files.leasePath, JSON.stringify(this.#record()), 'lease');
    this.#held = true;
    return true;
  }

  /** Gives the lease up (on a clean stop) so another process takes over without waiting a TTL. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    if (this.#files.readLease()?.owner !== this.#owner) return;
    try {
      unlinkSync(this.#files.leasePath);
    } catch {
      // Already gone.
    }
  }

  /** Whether the lease holder has not been heard from for a TTL (or there is none). */
  isStale(): boolean {
    const current = this.#files.readLease();
    if (current === undefined) return !this.#corruptAndFresh();
    return this.#now() - current.heartbeatAt > this.#ttlMs;
  }

  #record(): LeaseRecord {
    return { owner: this.#owner, pid: process.pid, heartbeatAt: this.#now() };
  }

  /** An unreadable lease file younger than a TTL: someone may be writing it; leave it. */
  #corruptAndFresh(): boolean {
    try {
      return this.#now() - statSync(this.#files.leasePath).mtimeMs <= this.#ttlMs;
    } catch {
      return false;
    }
  }

  #create(): boolean {
    const temp = `${this.#files.leasePath}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    this.#files.writeAtomic(temp, JSON.stringify(this.#record()), 'lease-new');
    try {
      linkSync(temp, this.#files.leasePath);
      return true;
    } catch {
      return false;
    } finally {
      unlinkSync(temp);
    }
  }

  #takeOver(stale: LeaseRecord | undefined): boolean {
    const aside = `${this.#files.leasePath}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
    try {
      renameSync(this.#files.leasePath, aside);
    } catch {
      // Someone else moved it first (or it vanished): try a plain creation.
      return this.#create();
    }
    const moved = this.#files.readLease(aside);
    const same =
      stale === undefined
        ? moved === undefined
        : moved?.owner === stale.owner && moved.heartbeatAt === stale.heartbeatAt;
    if (!same) {
      // We moved a fresh lease of a faster process: put it back (unless yet another exists).
      try {
        linkSync(aside, this.#files.leasePath);
      } catch {
        // A third process created one meanwhile; it stands.
      }
      unlinkSync(aside);
      return false;
    }
    unlinkSync(aside);
    return this.#create();
  }
}
