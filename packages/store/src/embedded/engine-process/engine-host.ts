/**
 * The engine process: chDB alone in a process of its own, started by engine-process.ts (usually
 * inside the jail of jail.ts) and driven over a socket on file descriptor 3 (wire.ts). Not over
 * standard input: the local engine reads a piped standard input as an insert's data, and an
 * insert after a failed query then failed with "both inlined and external data".
 *
 * Why a process: chDB is ClickHouse in a library, and in its local mode the scalar `file(path)`
 * function reads any file the process may read, with no setting or grant to stop it. In the
 * pipeline's own process that is `/proc/self/environ` (the secrets) and `/proc/self/fd/1` (npm
 * start's output, with every API key). Here the engine shares nothing with the pipeline: its
 * environment holds its allocator's settings and the time zone, its only link to the store is a socket, and in the jail
 * (jail.ts) it sees no process, network or file of the host beyond its data directory and the
 * programs it runs.
 *
 * Requests: `open`/`close` a session; `query`, `exec`, `command`, `insert`, `rawInsert`, `ping` on
 * a session, answered by id (sessions run concurrently, so answers come in any order). The engine
 * is started, and its configuration checked, before the first request is read.
 */
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type * as ChdbModule from 'chdb';
import type * as ChdbConnectionModule from 'chdb/connection';
import { encodeMessage, type Head, MessageReader, wireError } from './wire.js';

type Session = ChdbConnectionModule.ChdbConnection;

const load = createRequire(import.meta.url);
const [dataDir, configFile, emptyDir] = process.argv.slice(2) as [string, string, string];

/** The store's end: a socket pair (not a pipe), which no `open` of /proc/self/fd/3 can reach. */
const link = new Socket({ fd: 3, readable: true, writable: true });

function send(head: Head, body?: Buffer): void {
  for (const chunk of encodeMessage(head, body)) link.write(chunk);
}

async function bytesOf(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** Starts the engine with the sandbox's configuration, and proves it took that configuration. */
function startEngine(): ChdbModule.Session {
  const chdb = load('chdb') as typeof ChdbModule;
  const anchor = new chdb.Session(dataDir, { connectionArgs: [`--config-file=${configFile}`] });
  const filesPath = anchor
    .query("SELECT value FROM system.server_settings WHERE name = 'user_files_path'", 'TSVRaw')
    .trim();
  if (filesPath.replace(/\/$/, '') !== emptyDir) {
    anchor.close();
    throw new Error(
      `embedded chDB at ${dataDir} did not take the store's sandbox configuration (its files folder is ${filesPath})`,
    );
  }
  return anchor;
}

const sessions = new Map<number, Session | Error>();

function sessionOf(id: unknown): Session {
  const session = sessions.get(id as number);
  if (session === undefined)
    throw new Error(`engine session ${String(id)} is not open in this engine process`);
  if (session instanceof Error) throw session;
  return session;
}

type Params = Record<string, unknown>;

/**
 * Statements that carry data run one at a time across all sessions. chDB hands an insert's data
 * to the engine through state that is not per session: with two data-carrying inserts of different
 * sessions at once, one failed with "Processing async inserts with both inlined and external data"
 * (about one run in four of the store's interleaving test). Queries are not held by this.
 */
let dataTurn: Promise<unknown> = Promise.resolve();
function inDataTurn<T>(work: () => Promise<T>): Promise<T> {
  const turn = dataTurn.then(work, work);
  dataTurn = turn.catch(() => undefined);
  return turn;
}

/** Each operation: the session, the request's params and body -> the answer's result and body. */
const OPERATIONS: Record<string, (s: Session, p: Params, body: Buffer) => Promise<[unknown, Buffer?]>> = {
  async query(s, p) {
    const { stream, ...rest } = await s.query(p as never);
    return [rest, await bytesOf(stream)];
  },
  async exec(s, p, body) {
    const { hasValues, ...params } = p;
    const run = async (): Promise<[unknown, Buffer]> => {
      const values = hasValues === true ? Readable.from([body]) : undefined;
      const { stream, ...rest } = await s.exec({ ...params, values } as never);
      return [rest, await bytesOf(stream)];
    };
    return hasValues === true ? inDataTurn(run) : run();
  },
  async command(s, p) {
    return [await s.command(p as never)];
  },
  async insert(s, p, body) {
    return [await inDataTurn(() => s.insert({ ...p, values: body.toString('utf8') } as never))];
  },
  async rawInsert(s, p, body) {
    return [await inDataTurn(() => s.chdb.rawInsert({ ...p, values: body } as never))];
  },
  async ping(s) {
    const result = await s.ping({ select: true } as never);
    return [result.success ? { success: true } : { success: false, error: wireError(result.error) }];
  },
};

async function handle(head: Head, body: Buffer): Promise<void> {
  const { id, op, session } = head;
  if (op === 'open') {
    try {
      const connection = (load('chdb/connection') as typeof ChdbConnectionModule).createChdbConnection({
        path: dataDir,
      });
      sessions.set(session as number, connection);
    } catch (error) {
      sessions.set(session as number, error instanceof Error ? error : new Error(String(error)));
    }
    return;
  }
  try {
    if (op === 'close') {
      const open = sessions.get(session as number);
      sessions.delete(session as number);
      if (open !== undefined && !(open instanceof Error)) await open.close();
      send({ id, ok: true, result: {} });
      return;
    }
    const operation = OPERATIONS[op as string];
    if (operation === undefined) throw new Error(`unknown engine operation ${String(op)}`);
    const [result, answer] = await operation(sessionOf(session), (head.params ?? {}) as Params, body);
    send({ id, ok: true, result }, answer);
  } catch (error) {
    send({ id, ok: false, error: wireError(error) });
  }
}

function main(): void {
  let anchor: ChdbModule.Session;
  try {
    anchor = startEngine();
  } catch (error) {
    send({ op: 'failed', error: wireError(error) });
    link.end(() => process.exit(1));
    return;
  }
  send({ op: 'ready' });
  const reader = new MessageReader();
  link.on('data', (chunk: Buffer) => {
    for (const message of reader.push(chunk)) void handle(message.head, message.body);
  });
  // The store closed its end (or its process is gone): nothing more will be asked.
  link.on('end', () => {
    for (const session of sessions.values()) if (!(session instanceof Error)) void session.close();
    anchor.close();
    process.exit(0);
  });
}

main();
