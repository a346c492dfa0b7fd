/**
 * One account's token shared by several processes (spec: one token per account; a renewal or a new
 * token ends the previous one at once). The lease holder renews and publishes; readers follow the
 * published token, leave a refusal note when the service refuses it, and take the lease over when
 * its holder stops heartbeating.
 */
import { randomUUID } from 'node:crypto';
import type { IssuedToken } from '../sources/issuer.js';
import { Lease } from './lease.js';
import { type PublishedToken, SharedFiles, tokenHash } from './shared-files.js';

export class SharedRenewal {
  readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly files: SharedFiles;
  readonly lease: Lease;
  readonly #leaseMs: number;
  #lastHeartbeat = 0;
  #seenSignature = '';

  constructor(dir: string, clientId: string, leaseMs: number) {
    this.files = new SharedFiles(dir, clientId);
    this.lease = new Lease(this.files, this.owner, leaseMs);
    this.#leaseMs = leaseMs;
  }

  get isOwner(): boolean {
    return this.lease.held;
  }

  /** Tries to take the lease (free or stale); true when held afterwards. */
  acquire(): boolean {
    const held = this.lease.tryAcquire();
    if (held) this.#lastHeartbeat = Date.now();
    return held;
  }

  /** The owner's periodic duty: a heartbeat every third of the TTL. False when the lease was lost. */
  heartbeatIfDue(): boolean {
    if (Date.now() - this.#lastHeartbeat < this.#leaseMs / 3) return this.lease.held;
    this.#lastHeartbeat = Date.now();
    return this.lease.heartbeat();
  }

  publish(token: IssuedToken): void {
    const record: PublishedToken = { ...token, publishedAt: Date.now(), owner: this.owner };
    this.files.publishToken(record);
    this.#seenSignature = this.files.tokenSignature();
  }

  /** The published token, when it changed since last looked at. */
  changedToken(): IssuedToken | undefined {
    const signature = this.files.tokenSignature();
    if (signature === this.#seenSignature) return undefined;
    this.#seenSignature = signature;
    const t = this.files.readToken();
    return t === undefined ? undefined : { accessToken: t.accessToken, expiresAt: t.expiresAt };
  }

  /** Whether a reader noted `current` refused (the note is consumed). */
  refusalOf(current: IssuedToken): boolean {
    const hash = this.files.takeRefused();
    return hash !== undefined && hash === tokenHash(current.accessToken);
  }

  noteRefused(token: IssuedToken): void {
    this.files.noteRefused(token.accessToken);
  }
}
