/**
 * A part of `npm start` run as a child process of its own, supervised: started and waited for
 * until it says it is ready, checked for health while it runs, started again (with backoff) when
 * it dies or stops answering, and stopped on request, gracefully first and killed if it will not.
 * Its stdout and stderr reach npm start's log line by line, prefixed with its name and scrubbed of
 * every secret npm start knows (log.ts).
 *
 * The child runs the part's entry module (gateway-child.ts for the trading gateway); it and its
 * parent talk over calls.ts: the child asks for its `init` (what this generation starts with),
 * uses what the parent offers (the store, the token, the limiter), and says `ready` with what it
 * started. Each generation gets a channel of its own, and what the parent lent the dead one (rate
 * slots) is given back when it exits.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Backoff } from '@feedpipe/retry';
import { CallChannel } from './calls.js';

/** A healthy child is asked again after this; a stalled /healthz counts as a failure after HEALTH_TIMEOUT_MS. */
const HEALTH_EVERY_MS = 5_000;
const HEALTH_TIMEOUT_MS = 5_000;
/**
 * Failures in a row before the child is killed and started again: 30 s without an answer. A flood
 * can slow /healthz for seconds (bench:flood saw 1.6 s); a restart would only add a gap of orders.
 */
const HEALTH_FAILURES = 6;
/** A child that ran this long before dying starts again at once (its backoff is reset). */
const STABLE_AFTER_MS = 60_000;
/** How long the child's own stop may take before it is killed (within npm start's 2.5 s per part). */
const GRACEFUL_STOP_MS = 2_000;
/** A child that does not say it is ready within this is killed (and started again). */
const READY_TIMEOUT_MS = 120_000;

export interface SupervisedChildOptions<Init, Ready> {
  /** Its name in the log. */
  name: string;
  /** The entry module the child runs (with tsx, as npm start itself runs). */
  entry: URL;
  /** What each generation starts with; `previous` is what the last one reported ready (a restart). */
  init(previous: Ready | undefined): Init;
  /** Offers the parent's parts on a new generation's channel; `close` takes back what it lent. */
  offer(channel: CallChannel): { close(): void };
  /** The URL of the child's health check, from its ready report. */
  healthUrl(ready: Ready): string;
  log(line: string): void;
}

export interface SupervisedChild<Ready> {
  /** The first generation's ready report. */
  readonly ready: Ready;
  /** The process id of the generation running now (undefined between generations). */
  pid(): number | undefined;
  /** Generations started so far, the first included. */
  starts(): number;
  stop(): Promise<void>;
}

export class SupervisedChildError extends Error {
  readonly code = 'CHILD_NOT_READY';
  constructor(message: string) {
    super(message);
    this.name = 'SupervisedChildError';
  }
}

interface Generation<Ready> {
  child: ChildProcess;
  ready: Promise<Ready>;
  exited: Promise<void>;
}

class Supervisor<Init, Ready> implements SupervisedChild<Ready> {
  readonly #options: SupervisedChildOptions<Init, Ready>;
  readonly #backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  #ready: Ready | undefined;
  #current: Generation<Ready> | undefined;
  #starts = 0;
  #stopping = false;
  #health: NodeJS.Timeout | undefined;
  #restart: NodeJS.Timeout | undefined;

  constructor(options: SupervisedChildOptions<Init, Ready>) {
    this.#options = options;
  }

  get ready(): Ready {
    if (this.#ready === undefined) throw new SupervisedChildError(`${this.#options.name} has not started`);
    return this.#ready;
  }

  pid(): number | undefined {
    return this.#current?.child.pid;
  }

  starts(): number {
    return this.#starts;
  }

  /** Starts a generation and waits for its ready report; a failed start is thrown (the first) or retried (later). */
  async startGeneration(): Promise<Ready> {
    const generation = this.#spawn();
    this.#current = generation;
    const ready = await generation.ready;
    this.#ready = ready;
    this.#watchHealth(ready);
    return ready;
  }

  #spawn(): Generation<Ready> {
    const { name } = this.#options;
    this.#starts += 1;
    const startedAt = Date.now();
    const child = fork(this.#options.entry, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    // A failed spawn or a lost channel: the exit that follows (or the ready timer) starts it again.
    child.on('error', (error) => this.#options.log(`${name}: ${error.message}`));
    for (const stream of [child.stdout, child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on('line', (line) => this.#options.log(`[${name}] ${line}`));
    }
    const channel = new CallChannel(child);
    const lent = this.#options.offer(channel);
    const previous = this.#ready;
    channel.handle('init', () => this.#options.init(previous));
    let reportReady: (ready: Ready) => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    const ready = new Promise<Ready>((resolve, reject) => {
      reportReady = resolve;
      failStart = reject;
    });
    channel.handle('ready', (report: Ready) => reportReady(report));
    const readyTimer = setTimeout(() => {
      failStart(new SupervisedChildError(`${name} was not ready within ${READY_TIMEOUT_MS} ms`));
      child.kill('SIGKILL');
    }, READY_TIMEOUT_MS);
    void ready.then(
      () => clearTimeout(readyTimer),
      () => clearTimeout(readyTimer),
    );
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        clearTimeout(readyTimer);
        channel.close();
        lent.close();
        failStart(
          new SupervisedChildError(`${name} exited (${signal ?? `code ${code}`}) before it was ready`),
        );
        resolve();
        this.#exited(child, code, signal, Date.now() - startedAt);
      });
    });
    return { child, ready, exited };
  }

  #exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, ranMs: number): void {
    if (this.#current?.child !== child) return;
    this.#current = undefined;
    this.#stopHealth();
    if (this.#stopping) return;
    if (ranMs >= STABLE_AFTER_MS) this.#backoff.reset();
    const delay = this.#backoff.next();
    this.#options.log(
      `${this.#options.name} exited (${signal ?? `code ${code}`}); starting it again in ${delay} ms`,
    );
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      if (this.#stopping) return;
      this.startGeneration().then(
        () => this.#options.log(`${this.#options.name} started again (pid ${this.pid()})`),
        (error: unknown) =>
          this.#options.log(`${this.#options.name} did not start again: ${(error as Error).message}`),
      );
    }, delay);
  }

  #watchHealth(ready: Ready): void {
    this.#stopHealth();
    const url = this.#options.healthUrl(ready);
    let failures = 0;
    const check = async (): Promise<void> => {
      const healthy = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then(
        (response) => {
          void response.body?.cancel();
          return response.ok;
        },
        () => false,
      );
      failures = healthy ? 0 : failures + 1;
      if (failures >= HEALTH_FAILURES && !this.#stopping) {
        this.#options.log(`${this.#options.name} failed ${failures} health checks in a row; killing it`);
        failures = 0;
        this.#current?.child.kill('SIGKILL');
      }
    };
    this.#health = setInterval(() => void check(), HEALTH_EVERY_MS);
    this.#health.unref();
  }

  #stopHealth(): void {
    if (this.#health) clearInterval(this.#health);
    this.#health = undefined;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#stopHealth();
    if (this.#restart) clearTimeout(this.#restart);
    const generation = this.#current;
    if (!generation) return;
    // Gracefully first (the child stops its server, flushes its producer); killed if it hangs.
    generation.child.send({ kind: 'stop' }, () => undefined);
    const killer = setTimeout(() => generation.child.kill('SIGKILL'), GRACEFUL_STOP_MS);
    await generation.exited;
    clearTimeout(killer);
  }
}

/** Starts `options.entry` as a supervised child and waits until its first generation is ready. */
export async function startSupervisedChild<Init, Ready>(
  options: SupervisedChildOptions<Init, Ready>,
): Promise<SupervisedChild<Ready>> {
  const supervisor = new Supervisor(options);
  try {
    await supervisor.startGeneration();
  } catch (error) {
    await supervisor.stop();
    throw error;
  }
  return supervisor;
}
