/**
 * The store's side of the engine process (engine-host.ts): starts it (in the jail of jail.ts when
 * asked), sends it requests and matches the answers, and gives the embedded adapter sessions that
 * behave like chDB's own connection (`EngineSession`).
 *
 * Starting is synchronous for the caller: requests written before the engine is ready wait in the
 * pipe, and a failed start fails them all with its reason. When the engine process dies, every
 * request in flight fails with STORE_ENGINE_LOST (retryable), and the process is started again:
 * sessions of the dead one fail on their next request, and the session layer's clean-up replaces
 * them with sessions of the new one. Restarts are spaced at least `RESTART_SPACING_MS` apart so a
 * process that cannot start does not spin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ClickHouseError } from '@clickhouse/client';
import type {
  ConnBaseQueryParams,
  ConnCommandResult,
  ConnExecParams,
  ConnExecResult,
  ConnInsertParams,
  ConnInsertResult,
  ConnPingParams,
  ConnPingResult,
  ConnQueryResult,
} from 'chdb/connection';
import { StoreError } from '../../errors.js';
import type { EngineSessionSurface } from '../session-connection.js';
import { type EngineIsolation, spawnPlan } from './jail.js';
import { type EngineMessage, encodeMessage, type Head, MessageReader, type WireError } from './wire.js';

const RESTART_SPACING_MS = 2_000;
const CLOSE_GRACE_MS = 10_000;

export interface EngineProcessOptions {
  dataDir: string;
  /** The engine's configuration file (engine-sandbox.ts) and its empty files folder. */
  configFile: string;
  emptyDir: string;
  backupDir: string | undefined;
  isolation: EngineIsolation;
  /** Where the engine's stderr lines go (chDB's own warnings). */
  log?: (line: string) => void;
}

/** The engine's error as the caller would have seen it in-process: a ClickHouseError when it was one. */
function errorOf(wire: WireError): Error {
  if (wire.code !== undefined && wire.type !== undefined) {
    return new ClickHouseError({ message: wire.message, code: wire.code, type: wire.type });
  }
  const error = new Error(wire.message);
  if (wire.name !== undefined) error.name = wire.name;
  return error;
}

interface Pending {
  resolve: (message: EngineMessage) => void;
  reject: (error: Error) => void;
}

/** One started engine process: its pipe, its answers in flight, its fate. */
class Generation {
  readonly child: ChildProcess;
  /** The engine's file descriptor 3: requests out, answers in. */
  readonly link: Socket;
  readonly pending = new Map<number, Pending>();
  /** Set when the process failed to start or died: every request fails with it. */
  failure: Error | undefined;
  readonly exited: Promise<void>;

  constructor(child: ChildProcess, onExit: (generation: Generation) => void) {
    this.child = child;
    this.link = child.stdio[3] as Socket;
    const reader = new MessageReader();
    this.link.on('data', (chunk: Buffer) => {
      let messages: EngineMessage[];
      try {
        messages = reader.push(chunk);
      } catch (error) {
        // A peer that breaks the framing cannot be resynchronised: it is ended and started again.
        this.fail(
          new StoreError(
            'STORE_ENGINE_LOST',
            `the embedded engine sent a malformed answer: ${(error as Error).message}`,
            {
              retryable: true,
            },
          ),
        );
        child.kill('SIGKILL');
        return;
      }
      for (const message of messages) this.#receive(message);
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.fail(
          new StoreError(
            'STORE_ENGINE_LOST',
            `the embedded engine process ended (${signal ?? `exit code ${code}`})`,
            { retryable: true },
          ),
        );
        onExit(this);
        resolve();
      });
    });
    child.on('error', (error) =>
      this.fail(
        new StoreError('STORE_ENGINE_LOST', `the embedded engine process could not start: ${error.message}`, {
          retryable: true,
        }),
      ),
    );
    // A closed pipe under a dying process surfaces as the exit above, not as an unhandled error.
    this.link.on('error', () => undefined);
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
  }

  #receive(message: EngineMessage): void {
    const { head } = message;
    if (head.op === 'ready') return;
    if (head.op === 'failed') {
      this.fail(new StoreError('STORE_CONFIG_INVALID', (head.error as WireError).message));
      return;
    }
    const pending = this.pending.get(head.id as number);
    if (pending === undefined) return;
    this.pending.delete(head.id as number);
    if (head.ok === true) pending.resolve(message);
    else pending.reject(errorOf(head.error as WireError));
  }
}

/** The packages the host script loads (chDB, tsx) live in this node_modules folder. */
function modulesDir(): string {
  const chdbPackage = createRequire(import.meta.url).resolve('chdb/package.json');
  return dirname(dirname(chdbPackage));
}

export class EngineProcess {
  readonly #options: EngineProcessOptions;
  #generation: Generation;
  #lastStart = 0;
  #nextId = 1;
  #closed = false;
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  /** The empty directory the jail's root is mounted on (in its namespace only); none without a jail. */
  readonly #mountPoint: string | undefined;

  constructor(options: EngineProcessOptions) {
    this.#options = options;
    this.#mountPoint =
      options.isolation === 'namespaces' ? mkdtempSync(join(tmpdir(), 'feedpipe-engine-')) : undefined;
    this.#generation = this.#start();
  }

  #start(): Generation {
    this.#lastStart = Date.now();
    const hostDir = dirname(fileURLToPath(import.meta.url));
    const modules = modulesDir();
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const plan = spawnPlan(
      this.#options.isolation,
      {
        // The host script's folder, its package's manifest (ESM), and the installed packages.
        readOnly: [hostDir, join(hostDir, '../../../package.json'), modules, dirname(process.execPath)],
        readWrite: [this.#options.dataDir, ...(this.#options.backupDir ? [this.#options.backupDir] : [])],
        mountPoint: this.#mountPoint ?? '',
      },
      process.execPath,
      [
        '--import',
        tsx,
        join(hostDir, 'engine-host.ts'),
        this.#options.dataDir,
        this.#options.configFile,
        this.#options.emptyDir,
      ],
    );
    // Standard input is /dev/null (the local engine would read a pipe there as insert data);
    // what the engine prints goes to the log; fd 3 is the link.
    const child = spawn(plan.command, plan.args, {
      env: plan.env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    for (const output of [child.stdout, child.stderr]) this.#logLines(output as Readable);
    return new Generation(child, (generation) => this.#onExit(generation));
  }

  #logLines(output: Readable): void {
    output.setEncoding('utf8');
    let partial = '';
    output.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') this.#options.log?.(line);
    });
  }

  #onExit(generation: Generation): void {
    if (this.#closed || generation !== this.#generation) return;
    const wait = Math.max(0, this.#lastStart + RESTART_SPACING_MS - Date.now());
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (!this.#closed) this.#generation = this.#start();
    }, wait);
    this.#restartTimer.unref();
  }

  /** Opens a session in the current engine process. */
  openSession(): EngineSession {
    return new EngineSession(this, this.#generation, this.#nextId++);
  }

  /** @internal Sends a request on `generation` and waits for its answer. */
  request(generation: Generation, head: Head, body?: Buffer): Promise<EngineMessage> {
    if (this.#closed) return Promise.reject(new StoreError('STORE_CLOSED', 'the store is closed'));
    if (generation !== this.#generation || generation.failure) {
      return Promise.reject(
        generation.failure ??
          new StoreError('STORE_ENGINE_LOST', 'the session belonged to an engine process that has ended', {
            retryable: true,
          }),
      );
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      generation.pending.set(id, { resolve, reject });
      this.#write(generation, { ...head, id }, body);
    });
  }

  /** @internal A message that has no answer (a session's open). */
  post(generation: Generation, head: Head): void {
    if (generation === this.#generation && !generation.failure) this.#write(generation, head);
  }

  #write(generation: Generation, head: Head, body?: Buffer): void {
    for (const chunk of encodeMessage(head, body)) generation.link.write(chunk);
  }

  /** Ends the engine process after the sessions are closed: its link ends, it closes the engine. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    const generation = this.#generation;
    generation.link.end();
    const grace = setTimeout(() => generation.child.kill('SIGKILL'), CLOSE_GRACE_MS);
    if (generation.child.exitCode === null && generation.child.signalCode === null) await generation.exited;
    clearTimeout(grace);
    if (this.#mountPoint !== undefined) rmdirSync(this.#mountPoint);
  }
}

/** Settings and ids of a request: what crosses the pipe (an abort signal stays on this side). */
function paramsOf(params: object): Record<string, unknown> {
  const { abort_signal: _signal, values: _values, ...rest } = params as Record<string, unknown>;
  return rest;
}

/**
 * A whole answer as a stream of one chunk. Like chDB's own: a result closed unread is torn down
 * with an error, which this stream has no other source of, so it is absorbed here.
 */
function readableOf(body: Buffer): Readable {
  const stream = new Readable({
    read() {
      this.push(body);
      this.push(null);
    },
  });
  stream.on('error', () => undefined);
  return stream;
}

async function bytesOf(values: unknown): Promise<Buffer> {
  if (typeof values === 'string') return Buffer.from(values, 'utf8');
  if (Buffer.isBuffer(values)) return values;
  const chunks: Buffer[] = [];
  for await (const chunk of values as AsyncIterable<string | Uint8Array>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * A session of the engine process, with the surface of chDB's connection that the session layer
 * (session-connection.ts) uses. Results arrive whole (chDB materialises them before the first
 * byte anyway) and are handed on as one-chunk streams.
 */
export class EngineSession implements EngineSessionSurface {
  readonly #engine: EngineProcess;
  readonly #generation: Generation;
  readonly #id: number;
  readonly chdb: EngineSessionSurface['chdb'];

  constructor(engine: EngineProcess, generation: Generation, id: number) {
    this.#engine = engine;
    this.#generation = generation;
    this.#id = id;
    engine.post(generation, { op: 'open', session: id });
    this.chdb = {
      rawInsert: async (params) => {
        const values =
          typeof params.values === 'string' ? Buffer.from(params.values) : Buffer.from(params.values);
        return (await this.#call('rawInsert', paramsOf(params), values)).result as never;
      },
    };
  }

  async #call(
    op: string,
    params: Record<string, unknown>,
    body?: Buffer,
  ): Promise<{ result: Record<string, unknown>; body: Buffer }> {
    const answer = await this.#engine.request(this.#generation, { op, session: this.#id, params }, body);
    return { result: (answer.head.result ?? {}) as Record<string, unknown>, body: answer.body };
  }

  async query(params: ConnBaseQueryParams): Promise<ConnQueryResult<Readable>> {
    const { result, body } = await this.#call('query', paramsOf(params));
    return { ...(result as Omit<ConnQueryResult<Readable>, 'stream'>), stream: readableOf(body) };
  }

  async exec(params: ConnExecParams<Readable>): Promise<ConnExecResult<Readable>> {
    const hasValues = params.values !== undefined;
    const values = hasValues ? await bytesOf(params.values) : undefined;
    const { result, body } = await this.#call('exec', { ...paramsOf(params), hasValues }, values);
    return { ...(result as Omit<ConnExecResult<Readable>, 'stream'>), stream: readableOf(body) };
  }

  async command(params: ConnBaseQueryParams): Promise<ConnCommandResult> {
    return (await this.#call('command', paramsOf(params))).result as unknown as ConnCommandResult;
  }

  async insert(params: ConnInsertParams<Readable>): Promise<ConnInsertResult> {
    const { result } = await this.#call('insert', paramsOf(params), await bytesOf(params.values));
    return result as unknown as ConnInsertResult;
  }

  async ping(_params: ConnPingParams): Promise<ConnPingResult> {
    try {
      const { result } = await this.#call('ping', {});
      if (result.success === true) return { success: true };
      return { success: false, error: errorOf(result.error as WireError) };
    } catch (error) {
      return { success: false, error: error as Error };
    }
  }

  async close(): Promise<void> {
    await this.#call('close', {}).catch(() => undefined);
  }
}
