/**
 * A thread for a pool's feed sockets (the worker: socket-thread-worker.ts). The main thread of an
 * ingestor decodes nothing, but it does everything else: the write-ahead log, chunking, the gap
 * ledger, the leadership's control topic, Kafka sends of its own, and its garbage collections; any
 * of them can hold its event loop for a hundred milliseconds and more under load. A socket read
 * there waits that long to be stamped, and an opened socket waits that long for its subscriptions.
 * On this thread the greeting goes out as the socket opens and every message is stamped as read;
 * the main thread gets them in order, a batch per read, and carries on as with a socket of its own.
 *
 * One thread serves all the pool's sockets (its work is small: read, copy, post). Should it die, its
 * sockets report a close (1006) and the connections reconnect as after any dropped socket; the next
 * open starts a new thread.
 */
import { Worker } from 'node:worker_threads';
import type { FeedSocket, FeedSocketHandlers, FeedSocketOpener } from './feed-socket.js';
import type { SocketCommand, SocketReport } from './socket-thread-protocol.js';

const WORKER_URL = new URL('./socket-thread-worker.ts', import.meta.url);
/** Code reported for a socket whose thread died under it (as for a connection cut without a close). */
const ABNORMAL_CLOSE = 1006;

interface Proxy {
  handlers: FeedSocketHandlers;
  state: 'connecting' | 'open' | 'closing' | 'closed';
}

export class SocketThread {
  #worker: Worker | undefined;
  readonly #sockets = new Map<number, Proxy>();
  #nextId = 1;
  /** Its owner is done with it: the thread ends once its last socket has closed. */
  #retiring = false;

  /** Opens sockets on this thread (a `FeedSocketOpener`). */
  readonly open: FeedSocketOpener = (url, options, handlers) => {
    const id = this.#nextId++;
    this.#retiring = false;
    const proxy: Proxy = { handlers: { ...handlers }, state: 'connecting' };
    this.#sockets.set(id, proxy);
    this.#send({
      op: 'open',
      id,
      url: url.toString(),
      handshakeTimeoutMs: options.handshakeTimeoutMs,
      greeting: options.greeting,
    });
    const command = (op: 'terminate' | 'pause' | 'resume'): void => {
      if (proxy.state !== 'closed') this.#send({ op, id });
    };
    const socket: FeedSocket = {
      get writable() {
        return proxy.state === 'open';
      },
      listen: (next) => Object.assign(proxy.handlers, next),
      send: (data) => {
        if (proxy.state === 'open') this.#send({ op: 'send', id, data });
      },
      close: (code, reason) => {
        if (proxy.state === 'closed') return;
        proxy.state = 'closing';
        this.#send({ op: 'close', id, code, reason });
      },
      terminate: () => command('terminate'),
      pause: () => command('pause'),
      resume: () => command('resume'),
    };
    return socket;
  };

  /** Starts the thread if it is not running (the first socket would otherwise start it). */
  start(): void {
    this.#started();
  }

  /**
   * Ends the thread once the sockets it holds have closed (at once when there are none): its owner
   * stopped them all. An open after this starts a thread again.
   */
  retire(): void {
    this.#retiring = true;
    this.#endIfRetired();
  }

  /** Whether the thread is running (started and not ended). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Sockets this thread holds (not closed yet). */
  get sockets(): number {
    return this.#sockets.size;
  }

  /** Ends the thread; its sockets (there should be none left) report a close. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    // Only the sockets it held: one opened while it ends is a new thread's.
    const held = [...this.#sockets.keys()];
    if (worker) await worker.terminate();
    this.#orphan(held);
  }

  #endIfRetired(): void {
    if (this.#retiring && this.#sockets.size === 0 && this.#worker) void this.stop();
  }

  #send(command: SocketCommand): void {
    this.#started().postMessage(command);
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_URL, {
      // The worker is TypeScript: load it through tsx like the rest of the workspace.
      execArgv: [...process.execArgv.filter((a) => !a.startsWith('--inspect')), '--import', 'tsx'],
    });
    worker.on('message', (report: SocketReport) => this.#onReport(report));
    worker.on('error', () => {
      // 'exit' follows.
    });
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#orphan();
    });
    // The sockets keep the thread busy, not the process alive: the ingestor's own lifetime decides.
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /** The thread is gone: the sockets it held (`ids`, default all) are closed as if cut. */
  #orphan(ids: readonly number[] = [...this.#sockets.keys()]): void {
    for (const id of ids) {
      const proxy = this.#sockets.get(id);
      if (!proxy) continue;
      this.#sockets.delete(id);
      proxy.state = 'closed';
      proxy.handlers.close(ABNORMAL_CLOSE, Date.now());
    }
  }

  #onReport(report: SocketReport): void {
    const proxy = this.#sockets.get(report.id);
    if (!proxy) return;
    const { handlers } = proxy;
    switch (report.ev) {
      case 'open':
        if (proxy.state === 'connecting') proxy.state = 'open';
        handlers.open(report.atMs);
        return;
      case 'messages': {
        let start = 0;
        for (let i = 0; i < report.ends.length; i++) {
          const end = report.ends[i] ?? start;
          // A view, not a copy: the pipeline copies frames into its chunks.
          const data = Buffer.from(report.bytes, start, end - start);
          start = end;
          // Read per message: a handler may swap them mid-batch (a stop, an Error packet).
          handlers.message(data, report.binary[i] === 1, report.receivedAtMicros[i] ?? 0);
        }
        return;
      }
      case 'ping':
        handlers.ping();
        return;
      case 'refused':
        handlers.refused(report.status);
        return;
      case 'close':
        proxy.state = 'closed';
        this.#sockets.delete(report.id);
        handlers.close(report.code, report.atMs);
        this.#endIfRetired();
        return;
    }
  }
}
