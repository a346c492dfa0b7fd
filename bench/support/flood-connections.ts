/**
 * The connection flood of issue #37: TCP connections that send nothing, held open and replaced
 * as the servers close them, so the servers face `target` idle connections for the whole run;
 * and a few requests whose body arrives one byte every `trickleEveryMs` (a slow-body client).
 *
 * What the client side can see is counted: connections opened, failed (by error code), and closed
 * by the server, with how long each lived (the servers' own counters of refused, evicted and
 * idle-closed connections are read by the benchmark from their /metrics). Bounded: at most
 * `maxPendingConnects` connects at once and `opensPerSecond` a second, at most `maxOpens`
 * connections over the run, each connect given up after CONNECT_TIMEOUT_MS.
 */
import { connect, type Socket } from 'node:net';
import { floodAddress } from './flood-addresses.js';

const CONNECT_TIMEOUT_MS = 10_000;

export interface Endpoint {
  host: string;
  port: number;
}

export interface IdleFloodOptions {
  /** Connections to hold open at once (across the endpoints). */
  target: number;
  /** Connections opened over the whole run, at most. */
  maxOpens: number;
  maxPendingConnects: number;
  /** Connects started per second, at most (the initial fill and the replacements alike). */
  opensPerSecond: number;
  /** Loopback source addresses the connections are spread over. */
  addresses: number;
}

export interface IdleFloodReport {
  target: number;
  attempted: number;
  opened: number;
  /** Connects that failed, by error code (ECONNREFUSED, EMFILE, CONNECT_TIMEOUT, ...). */
  failed: Record<string, number>;
  closed_by_server: number;
  /** Of those, closed within 1 s of opening (refused at the cap, or pushed out at once). */
  closed_within_1s: number;
  /** Of those, closed after 9.5 s or more (the servers' 10-s idle timeout, or pushed out late). */
  closed_after_9_5s: number;
  /** Lifetime in seconds of the connections the server closed: median and longest. */
  lifetime_p50_s: number;
  lifetime_max_s: number;
  peak_open: number;
  open_at_end: number;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export class IdleFlood {
  readonly #endpoints: readonly Endpoint[];
  readonly #options: IdleFloodOptions;
  readonly #open = new Set<Socket>();
  readonly #lifetimes: number[] = [];
  readonly #failed: Record<string, number> = {};
  #attempted = 0;
  #opened = 0;
  #pending = 0;
  #peak = 0;
  #stopped = false;
  #began = 0;
  #refill: NodeJS.Timeout | undefined;

  constructor(endpoints: readonly Endpoint[], options: IdleFloodOptions) {
    this.#endpoints = endpoints;
    this.#options = options;
  }

  /** Opens up to `target` and keeps it there until stop(). */
  start(): void {
    this.#began = performance.now();
    this.#fill();
  }

  stop(): IdleFloodReport {
    this.#stopped = true;
    if (this.#refill) clearTimeout(this.#refill);
    const openAtEnd = this.#open.size;
    for (const socket of this.#open) socket.destroy();
    const lifetimes = this.#lifetimes;
    return {
      target: this.#options.target,
      attempted: this.#attempted,
      opened: this.#opened,
      failed: this.#failed,
      closed_by_server: lifetimes.length,
      closed_within_1s: lifetimes.filter((s) => s < 1).length,
      closed_after_9_5s: lifetimes.filter((s) => s >= 9.5).length,
      lifetime_p50_s: round1(median(lifetimes)),
      lifetime_max_s: round1(lifetimes.reduce((a, b) => Math.max(a, b), 0)),
      peak_open: this.#peak,
      open_at_end: openAtEnd,
    };
  }

  #fill(): void {
    const o = this.#options;
    const allowed = Math.min(o.maxOpens, ((performance.now() - this.#began) / 1000 + 0.1) * o.opensPerSecond);
    while (
      !this.#stopped &&
      this.#open.size + this.#pending < o.target &&
      this.#pending < o.maxPendingConnects &&
      this.#attempted < allowed
    ) {
      this.#openOne();
    }
    // Held back by the rate: come back when more is allowed (one timer at a time).
    if (!this.#stopped && !this.#refill && this.#attempted >= allowed && this.#attempted < o.maxOpens) {
      this.#refill = setTimeout(() => {
        this.#refill = undefined;
        this.#fill();
      }, 50);
    }
  }

  #openOne(): void {
    const n = this.#attempted++;
    const endpoint = this.#endpoints[n % this.#endpoints.length] as Endpoint;
    this.#pending += 1;
    const socket = connect({ ...endpoint, localAddress: floodAddress(n % this.#options.addresses) });
    let openedAt = 0;
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('connect'), { code: 'CONNECT_TIMEOUT' })),
      CONNECT_TIMEOUT_MS,
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      this.#pending -= 1;
      this.#opened += 1;
      openedAt = performance.now();
      this.#open.add(socket);
      this.#peak = Math.max(this.#peak, this.#open.size);
      this.#fill();
    });
    socket.on('data', () => undefined);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (openedAt === 0)
        this.#failed[error.code ?? 'error'] = (this.#failed[error.code ?? 'error'] ?? 0) + 1;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (openedAt === 0) {
        this.#pending -= 1;
      } else if (!this.#stopped) {
        this.#open.delete(socket);
        this.#lifetimes.push((performance.now() - openedAt) / 1000);
      }
      // Replace it: the flood holds its size for the whole run.
      if (!this.#stopped) setImmediate(() => this.#fill());
    });
  }
}

export interface SlowBodyTarget {
  /** Label in the report. */
  route: string;
  endpoint: Endpoint;
  /** The request head, without the final blank line; a Content-Length far above what is sent. */
  head: string;
}

export interface SlowBodyReport {
  opened: number;
  closed_by_server: number;
  /** Bytes of body sent in all. */
  bytes_sent: number;
  /** The longest a slow request stayed open before the server closed it, seconds. */
  longest_open_s: number;
  /** Still open when the run ended (the server never closed them). */
  open_at_end: number;
  /** Status codes the server answered with before closing (none: closed without an answer). */
  answers: Record<string, number>;
}

/** Slow-body requests, `perRoute` to each target, one byte every `everyMs` until the server closes. */
export class SlowBodies {
  readonly #sockets = new Set<Socket>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #report: Record<string, SlowBodyReport> = {};
  #stopped = false;

  constructor(
    readonly targets: readonly SlowBodyTarget[],
    readonly perRoute: number,
    readonly everyMs: number,
  ) {}

  start(): void {
    for (const [t, target] of this.targets.entries()) {
      this.#report[target.route] = {
        opened: 0,
        closed_by_server: 0,
        bytes_sent: 0,
        longest_open_s: 0,
        open_at_end: 0,
        answers: {},
      };
      for (let i = 0; i < this.perRoute; i += 1) this.#one(target, t * this.perRoute + i);
    }
  }

  stop(): Record<string, SlowBodyReport> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const socket of this.#sockets) socket.destroy();
    return this.#report;
  }

  #one(target: SlowBodyTarget, n: number): void {
    const report = this.#report[target.route] as SlowBodyReport;
    const socket = connect({ ...target.endpoint, localAddress: floodAddress(n) });
    let openedAt = 0;
    let received = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      if (received.length < 64) received += chunk.toString('latin1');
    });
    socket.once('connect', () => {
      openedAt = performance.now();
      report.opened += 1;
      report.open_at_end += 1;
      this.#sockets.add(socket);
      socket.write(`${target.head}\r\n\r\n`);
      const timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) {
          socket.write('1');
          report.bytes_sent += 1;
        }
      }, this.everyMs);
      this.#timers.push(timer);
      socket.once('close', () => clearInterval(timer));
    });
    socket.once('close', () => {
      if (this.#stopped || openedAt === 0) return;
      this.#sockets.delete(socket);
      report.open_at_end -= 1;
      report.closed_by_server += 1;
      report.longest_open_s = Math.max(report.longest_open_s, round1((performance.now() - openedAt) / 1000));
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1] ?? 'none';
      report.answers[status] = (report.answers[status] ?? 0) + 1;
    });
  }
}
