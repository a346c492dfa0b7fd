/**
 * The parent's handle on the spec-only feed server running in its own process (spec-feed-process.ts):
 * the same questions as SpecFeedServer's, asked over IPC. Every call is bounded by a timeout.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SpecFeedCommand, SpecFeedReply } from './spec-feed-process.js';
import type { SpecFeedServerOptions, SpecFeedStats } from './spec-feed-server.js';

const ENTRY = fileURLToPath(new URL('./spec-feed-process.ts', import.meta.url));
const CALL_TIMEOUT_MS = 30_000;

export interface SpecFeedState {
  stats: SpecFeedStats;
  /** Open connections. */
  open: number;
  /** Instruments subscribed on open connections. */
  subscribed: number;
}

export interface RemoteSpecFeed {
  readonly url: string;
  state(): Promise<SpecFeedState>;
  /** Ends the `index`-th open connection abnormally (spec-feed-server.ts, `drop`). */
  drop(index: number): Promise<void>;
  /** Stops streaming; the totals at that moment. */
  pause(): Promise<SpecFeedStats>;
  /** Per id: the last sequence sent (trades 1..last were sent) and the snapshots sent. */
  sequences(ids: readonly number[]): Promise<{ last: number[]; snapshots: number[] }>;
  close(): Promise<void>;
}

/** A command without its id (each member of the union on its own). */
type Command = SpecFeedCommand extends infer C ? (C extends SpecFeedCommand ? Omit<C, 'id'> : never) : never;

export async function startSpecFeedProcess(options: SpecFeedServerOptions = {}): Promise<RemoteSpecFeed> {
  const child: ChildProcess = fork(ENTRY, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('spec feed process did not start')), CALL_TIMEOUT_MS);
    child.once('error', reject);
    child.on('message', (reply: SpecFeedReply) => {
      if (reply.type === 'ready') {
        clearTimeout(timer);
        resolve(reply.url);
        return;
      }
      const call = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (reply.error !== undefined) call?.reject(new Error(reply.error));
      else call?.resolve(reply.value);
    });
  });
  child.on('exit', () => {
    for (const call of waiting.values()) call.reject(new Error('spec feed process exited'));
    waiting.clear();
  });

  const call = <T>(command: Command): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`spec feed process: no answer to ${command.op}`));
      }, CALL_TIMEOUT_MS);
      waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ ...command, id });
    });

  return {
    url,
    state: () => call<SpecFeedState>({ op: 'state' }),
    drop: (index) => call<void>({ op: 'drop', index }),
    pause: () => call<SpecFeedStats>({ op: 'pause' }),
    sequences: (ids) => call({ op: 'sequences', ids: [...ids] }),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await call<void>({ op: 'close' }).catch(() => child.kill());
      await exited;
    },
  };
}
