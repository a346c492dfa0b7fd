/**
 * The rate slots of one account shared by its processes through files beside the token lease
 * (SVC_TOKEN_SHARE_DIR): the quote poller and the trading gateway, separate processes in compose,
 * then take the quote category's one request a second from one budget instead of each pacing
 * itself to the whole of it.
 *
 *   slots-<clientId>-<category>/<n>    {"at": epoch ms, "pid": ...}: the n-th grant of the category
 *
 * A grant is the next number, created whole and atomically: a complete temporary file is hard-linked
 * to the name, and link fails if the name exists, so of two processes claiming the same number one
 * wins and the other reads the winner's time and waits for the slot after it. No lock is held, so a
 * process killed at any point leaves nothing to clean up or time out. Before a claim the latest
 * numbers are read (those within the category's largest window count), and a claim is made only when
 * they leave room in every window. A request that leaves later than its grant rewrites its own file
 * with the later time (a rename over it: a reader sees the old or the new time, never half); only
 * the owner rewrites a grant, and only later, so the next slot can only move later.
 * The directory keeps the latest `KEPT_BEYOND_LIMIT` grants beyond the largest window count: each
 * claim removes the one that fell out.
 *
 *   slots-<clientId>-<category>/wait-<pid>-<id>    {"since": .., "at": ..}: this process waits for a slot
 *
 * Waiters are served in the order they began to wait, across processes as the limiter's queue does
 * within one: processes that wake for the same free slot would otherwise race for it, and the busier
 * one (the poller, always asking) would starve the other (the gateway's rare calls). A process finding
 * a slot free while another has waited longer steps back `YIELD_MS` for it. A waiter refreshes its
 * note at each refusal (about once a window); one not refreshed for `WAIT_FRESH_MS` (a process that
 * died or gave up) is ignored, so it can hold others back by no more than that.
 */
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { RateCategory, SharedSlots, SlotClaim, SlotTicket, WindowLimit } from '@feedpipe/broker-api';
import { CredentialsError } from '../errors.js';

/** Grants kept beyond the largest window's count, so a slow reader still finds the ones it needs. */
const KEPT_BEYOND_LIMIT = 16;
/** The largest count of a shared window: a claim reads that many files. */
const MAX_SHARED_COUNT = 64;
/** Claims lost to faster processes in a row before the caller is told to try again in 1 ms. */
const MAX_CLAIM_ROUNDS = 16;
/** How long a process that finds an earlier waiter steps back for it. */
const YIELD_MS = 2;
/** A waiter's note older than this is ignored (the waiter refreshes it about once a window). */
const WAIT_FRESH_MS = 3_000;

interface Lane {
  readonly dir: string;
  /** The latest grant number seen; verified (and moved forward) at each claim. */
  latest: number;
  /** When this process began to wait for the lane's next slot; undefined while it does not wait. */
  waitingSince: number | undefined;
}

export class FileRateSlots implements SharedSlots {
  readonly categories: readonly RateCategory[];
  readonly #lanes = new Map<RateCategory, Lane>();
  /** Names this instance's wait note: the process, and the instance within it. */
  readonly #waitName = `wait-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

  constructor(shareDir: string, clientId: string, categories: readonly RateCategory[]) {
    if (!/^[\w-]{1,64}$/.test(clientId)) {
      throw new CredentialsError(
        'CONFIG_INVALID',
        'SVC_CLIENT_ID must be letters, digits, _ or - to name shared files',
      );
    }
    this.categories = [...categories];
    for (const category of categories) {
      const dir = join(shareDir, `slots-${clientId}-${category}`);
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch (error) {
        throw new CredentialsError('SHARE_FAILED', `the rate slot directory ${dir} cannot be created`, {
          cause: error,
        });
      }
      this.#lanes.set(category, { dir, latest: 0, waitingSince: undefined });
    }
  }

  claim(category: RateCategory, limits: readonly WindowLimit[], now: number, marginMs: number): SlotClaim {
    const lane = this.#lane(category);
    const count = Math.max(1, ...limits.map((l) => l.max));
    if (count > MAX_SHARED_COUNT) {
      throw new CredentialsError(
        'CONFIG_INVALID',
        `the ${category} category allows ${count} requests a window; shared slots keep at most ${MAX_SHARED_COUNT}`,
      );
    }
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const latest = this.#findLatest(lane);
      const times = this.#recentTimes(lane, latest, count);
      const free = nextFree(times, limits, marginMs);
      if (free > now) {
        this.#noteWaiting(lane, now);
        return { granted: false, retryAt: free };
      }
      if (this.#earlierWaiter(lane, now)) {
        this.#noteWaiting(lane, now);
        return { granted: false, retryAt: now + YIELD_MS };
      }
      if (this.#create(lane, latest + 1, now)) {
        lane.latest = latest + 1;
        this.#stopWaiting(lane);
        this.#remove(lane, latest + 1 - count - KEPT_BEYOND_LIMIT);
        return { granted: true, ticket: { category, grantedAt: now, id: latest + 1 } };
      }
      // Another process took that number first: read its grant and judge again.
    }
    return { granted: false, retryAt: now + 1 };
  }

  moveLater(ticket: SlotTicket, time: number): void {
    const lane = this.#lane(ticket.category);
    const path = join(lane.dir, String(ticket.id));
    const current = readGrant(path);
    // Gone (fallen out of the kept ones) or already as late: nothing to move.
    if (current === undefined || current >= time) return;
    const temp = this.#writeTemp(lane, time);
    try {
      renameSync(temp, path);
    } catch (error) {
      unlinkQuietly(temp);
      throw shareFailed(lane, error);
    }
  }

  /** Notes (or refreshes) that this process waits for the lane's slot, since its first refusal. */
  #noteWaiting(lane: Lane, now: number): void {
    lane.waitingSince ??= now;
    const temp = join(lane.dir, `.wait-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      writeFileSync(temp, JSON.stringify({ since: lane.waitingSince, at: now }), { flag: 'wx', mode: 0o600 });
      renameSync(temp, join(lane.dir, this.#waitName));
    } catch (error) {
      unlinkQuietly(temp);
      throw shareFailed(lane, error);
    }
  }

  #stopWaiting(lane: Lane): void {
    if (lane.waitingSince === undefined) return;
    lane.waitingSince = undefined;
    unlinkQuietly(join(lane.dir, this.#waitName));
  }

  /** Whether another process, heard from lately, began waiting before this one did (or at all). */
  #earlierWaiter(lane: Lane, now: number): boolean {
    const mine = lane.waitingSince ?? now;
    let names: string[];
    try {
      names = readdirSync(lane.dir);
    } catch (error) {
      throw shareFailed(lane, error);
    }
    for (const name of names) {
      if (!name.startsWith('wait-') || name === this.#waitName) continue;
      const note = readJson(join(lane.dir, name)) as { since?: unknown; at?: unknown } | undefined;
      if (typeof note?.since !== 'number' || typeof note.at !== 'number') continue;
      if (now - note.at <= WAIT_FRESH_MS && note.since < mine) return true;
      // A note long unrefreshed is a process that died waiting: nobody else removes it.
      if (now - note.at > 10 * WAIT_FRESH_MS) unlinkQuietly(join(lane.dir, name));
    }
    return false;
  }

  #lane(category: RateCategory): Lane {
    const lane = this.#lanes.get(category);
    if (lane === undefined) {
      throw new CredentialsError('CONFIG_INVALID', `the ${category} category's slots are not shared`);
    }
    return lane;
  }

  /**
   * The latest grant number: from the one seen last, forward while the next exists. When the one
   * seen last is gone (removed after this process looked away for a while) the directory is listed.
   */
  #findLatest(lane: Lane): number {
    let latest = lane.latest;
    if (latest === 0 || !exists(join(lane.dir, String(latest)))) latest = this.#listLatest(lane);
    // Bounded: each step finds a grant some process made, and processes make about one a second.
    for (let step = 0; step < 100_000 && exists(join(lane.dir, String(latest + 1))); step++) latest++;
    lane.latest = latest;
    return latest;
  }

  #listLatest(lane: Lane): number {
    let names: string[];
    try {
      names = readdirSync(lane.dir);
    } catch (error) {
      throw shareFailed(lane, error);
    }
    let latest = 0;
    for (const name of names) if (/^\d+$/.test(name)) latest = Math.max(latest, Number(name));
    return latest;
  }

  /** Times of grants latest, latest - 1, ... (up to `count`), newest first. */
  #recentTimes(lane: Lane, latest: number, count: number): number[] {
    const times: number[] = [];
    for (let n = latest; n > 0 && n > latest - count; n--) {
      const at = readGrant(join(lane.dir, String(n)));
      if (at !== undefined) times.push(at);
    }
    return times.sort((a, b) => b - a);
  }

  /** Creates grant `n` whole; false when another process created it first. */
  #create(lane: Lane, n: number, at: number): boolean {
    const temp = this.#writeTemp(lane, at);
    try {
      linkSync(temp, join(lane.dir, String(n)));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw shareFailed(lane, error);
    } finally {
      unlinkQuietly(temp);
    }
  }

  #writeTemp(lane: Lane, at: number): string {
    const temp = join(lane.dir, `.grant-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      // No fsync: the grants matter for seconds, and a machine that restarts starts a new second.
      writeFileSync(temp, JSON.stringify({ at, pid: process.pid }), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      unlinkQuietly(temp);
      throw shareFailed(lane, error);
    }
    return temp;
  }

  #remove(lane: Lane, n: number): void {
    if (n > 0) unlinkQuietly(join(lane.dir, String(n)));
  }
}

/**
 * Earliest time one more request fits every window, given the grants' times newest first: for a
 * window of `max` requests, `windowMs` (plus the margin) after the max-th most recent grant.
 */
function nextFree(newestFirst: readonly number[], limits: readonly WindowLimit[], marginMs: number): number {
  let at = Number.NEGATIVE_INFINITY;
  for (const limit of limits) {
    const kth = newestFirst[limit.max - 1];
    if (kth !== undefined) at = Math.max(at, kth + limit.windowMs + marginMs);
  }
  return at;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A grant's time; undefined when the file is gone. A file that cannot be parsed (written by
 * something else) counts from its modification time, the latest it can be.
 */
function readGrant(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const at = (JSON.parse(text) as { at?: unknown }).at;
    if (typeof at === 'number' && Number.isFinite(at)) return at;
  } catch {
    // Fall through to the file's time.
  }
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function shareFailed(lane: Lane, cause: unknown): CredentialsError {
  return new CredentialsError('SHARE_FAILED', `the rate slots in ${lane.dir} cannot be used`, { cause });
}
