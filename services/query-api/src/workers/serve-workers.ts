/**
 * `QUERY_API_WORKERS` > 1: this process serves nothing itself; it runs that many `query-api serve`
 * processes, each a whole API instance with its own hot tier (loaded from ClickHouse and fed from
 * Kafka, as any instance's is), all listening on one port with SO_REUSEPORT, so the kernel spreads
 * connections over them and every core answers. One Node thread writes one answer at a time;
 * this is how a second core serves the hot tier without sharing its memory between threads.
 *
 * The first worker starts alone: it applies the migrations, creates the bootstrap key (if asked)
 * and binds the port (a free one when QUERY_API_PORT is 0); the others start once it listens, on
 * the port it got, without the bootstrap key or the ClickHouse-protocol port (one listener is
 * enough for SQL tools). A worker that exits on its own stops the rest and this process exits 1:
 * the supervisor above (systemd, compose) restarts the whole, instead of half the capacity
 * serving silently. SIGINT / SIGTERM are passed on, and this process exits when all have stopped.
 */
import { type ChildProcess, fork } from 'node:child_process';

/** The argument that tells `serve` it is a worker: listen with SO_REUSEPORT, report its address. */
export const WORKER_ARG = '--reuse-port';

/** What a worker reports over IPC once it listens. */
export interface WorkerListening {
  type: 'listening';
  url: string;
}

/** In a worker: tells the supervisor its address (no-op when not forked with IPC). */
export function reportListening(url: string): void {
  const message: WorkerListening = { type: 'listening', url };
  process.send?.(message);
}

export interface ServeWorkersOptions {
  workers: number;
  /** The script and Node options this process runs with, reused for the workers. */
  script: string;
  execArgv: readonly string[];
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Where SIGINT / SIGTERM come from (the process; a test gives an emitter of its own). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
}

function startWorker(o: ServeWorkersOptions, env: NodeJS.ProcessEnv): ChildProcess {
  return fork(o.script, ['serve', WORKER_ARG], {
    env,
    execArgv: [...o.execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function listening(child: ChildProcess, index: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void =>
      reject(new Error(`worker ${index} exited (code ${code}) before listening`));
    child.once('exit', onExit);
    child.on('message', (message: Partial<WorkerListening>) => {
      if (message.type !== 'listening' || typeof message.url !== 'string') return;
      child.off('exit', onExit);
      resolve(message.url);
    });
  });
}

/**
 * Runs the workers until a signal stops them (resolves 0) or one of them exits on its own (1):
 * the exit code for this process.
 */
export async function serveWorkers(o: ServeWorkersOptions): Promise<number> {
  const children: ChildProcess[] = [];
  const signals = o.signals ?? process;
  let stopping = false;
  let result = 0;
  const stopAll = (signal: NodeJS.Signals): void => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    stopping = true;
    stopAll(signal);
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  const exited = (child: ChildProcess, index: number): Promise<void> =>
    new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        if (!stopping) {
          o.log(`worker ${index} exited on its own (code ${code}, signal ${signal}); stopping the others`);
          result = 1;
          stopping = true;
          stopAll('SIGTERM');
        }
        resolve();
      });
    });

  const first = startWorker(o, o.env);
  children.push(first);
  const done = [exited(first, 0)];
  const url = await listening(first, 0);
  const port = new URL(url).port;
  const rest: NodeJS.ProcessEnv = { ...o.env, QUERY_API_PORT: port };
  delete rest.QUERY_API_BOOTSTRAP_KEY_NAME;
  delete rest.QUERY_API_CLICKHOUSE_PORT;
  for (let i = 1; i < o.workers && !stopping; i++) {
    const child = startWorker(o, rest);
    children.push(child);
    done.push(exited(child, i));
    await listening(child, i);
  }
  if (!stopping) o.log(`${children.length} workers listening on ${url} (SO_REUSEPORT)`);
  await Promise.all(done);
  signals.off('SIGINT', onSignal);
  signals.off('SIGTERM', onSignal);
  return result;
}
