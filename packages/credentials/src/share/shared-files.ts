/**
 * The files of one account in the shared directory (SVC_TOKEN_SHARE_DIR), written so a reader never
 * sees half of one: a temporary file (mode 0600) is written, flushed and renamed over the target.
 *
 *   token-<clientId>.json    {accessToken, expiresAt, publishedAt, owner}: the account's one token
 *   lease-<clientId>.json    {owner, pid, heartbeatAt}: who renews; stale after SVC_TOKEN_LEASE_S
 *   refused-<clientId>.txt   sha256 of a token a reader saw refused, so the owner renews at once
 *
 * The directory is created with mode 0700. The refusal note holds a hash, never the token.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CredentialsError } from '../errors.js';
import type { IssuedToken } from '../sources/issuer.js';

export interface PublishedToken extends IssuedToken {
  publishedAt: number;
  owner: string;
}

export interface LeaseRecord {
  owner: string;
  pid: number;
  heartbeatAt: number;
}

export function tokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('hex');
}

export class SharedFiles {
  readonly tokenPath: string;
  readonly leasePath: string;
  readonly refusedPath: string;
  readonly #dir: string;

  constructor(dir: string, clientId: string) {
    if (!/^[\w-]{1,64}$/.test(clientId)) {
      throw new CredentialsError(
        'CONFIG_INVALID',
        'SVC_CLIENT_ID must be letters, digits, _ or - to name shared files',
      );
    }
    this.#dir = dir;
    this.tokenPath = join(dir, `token-${clientId}.json`);
    this.leasePath = join(dir, `lease-${clientId}.json`);
    this.refusedPath = join(dir, `refused-${clientId}.txt`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new CredentialsError('SHARE_FAILED', `SVC_TOKEN_SHARE_DIR ${dir} cannot be created`, {
        cause: error,
      });
    }
  }

  /** Writes `text` to `path` atomically (temp file 0600, fsync, rename). */
  writeAtomic(path: string, text: string, tag: string): void {
    const temp = join(this.#dir, `.${tag}-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
    try {
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // Not created, or already renamed.
      }
      throw new CredentialsError('SHARE_FAILED', `cannot write ${path}`, { cause: error });
    }
  }

  publishToken(token: PublishedToken): void {
    this.writeAtomic(this.tokenPath, JSON.stringify(token), 'token');
  }

  readToken(): PublishedToken | undefined {
    const parsed = readJson(this.tokenPath) as Partial<PublishedToken> | undefined;
    if (
      parsed === undefined ||
      typeof parsed.accessToken !== 'string' ||
      typeof parsed.expiresAt !== 'number'
    ) {
      return undefined;
    }
    return parsed as PublishedToken;
  }

  /** Size, mtime and inode of the token file: a change means a new publication. */
  tokenSignature(): string {
    try {
      const s = statSync(this.tokenPath);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return 'absent';
    }
  }

  /** The lease record at `path` (default the lease itself); undefined if absent or unreadable. */
  readLease(path = this.leasePath): LeaseRecord | undefined {
    const parsed = readJson(path) as Partial<LeaseRecord> | undefined;
    if (parsed === undefined || typeof parsed.owner !== 'string' || typeof parsed.heartbeatAt !== 'number') {
      return undefined;
    }
    return parsed as LeaseRecord;
  }

  noteRefused(accessToken: string): void {
    this.writeAtomic(this.refusedPath, tokenHash(accessToken), 'refused');
  }

  /** The hash in the refusal note, if any; the note is removed once read. */
  takeRefused(): string | undefined {
    let text: string;
    try {
      text = readFileSync(this.refusedPath, 'utf8').trim();
      unlinkSync(this.refusedPath);
    } catch {
      return undefined;
    }
    return text.length > 0 ? text : undefined;
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
