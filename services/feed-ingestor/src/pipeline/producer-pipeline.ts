/**
 * Main-thread side of decoding and production. Frames from each connection are packed into chunks;
 * a chunk goes to a piscina worker (memory transferred) when it is full or old enough, and each
 * connection has at most one chunk in flight, which keeps per-instrument order from socket to
 * partition (an instrument lives on exactly one connection) while connections run in parallel.
 *
 * Bounded: the bytes held (filling, queued and in flight) never exceed `maxBufferedBytes`. At that
 * bound the pipeline reports `full` (the pool pauses reading its sockets, so TCP pushes back on the
 * server) and says so loudly; below half of it, reading resumes. Nothing is dropped silently.
 *
 * Frames enter through `push`; what comes back (Kafka's acknowledgement of a chunk, frames given up,
 * the buffer's pressure) goes to its `PipelineObserver`s (pipeline-observer.ts).
 */
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FeedTopics } from '@feedpipe/contracts';
import { Piscina } from 'piscina';
import { IngestorError } from '../errors.js';
import { FrameChunk } from './frame-chunk.js';
import type { PipelineObserver } from './pipeline-observer.js';
import type { ChunkResult, DecodeWorkerData } from './worker-protocol.js';

export interface ProducerPipelineOptions {
  brokers: string[];
  topics: FeedTopics;
  /** Decode/produce worker threads. Default 2. */
  workers?: number;
  /** Bytes per chunk. Default 1 MiB. */
  chunkBytes?: number;
  /** A non-empty chunk is sent after this long. Default 20 ms. */
  flushIntervalMs?: number;
  /** Bound on bytes held in the pipeline. Default 256 MiB. */
  maxBufferedBytes?: number;
  /** Kafka request timeout. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * Told of every acknowledged chunk, of the buffer's pressure and of frames that will never be
   * decoded (`worker_failed`, a chunk whose decoding failed every attempt; said on stderr too).
   * More can be added with `observe`.
   */
  observers?: readonly PipelineObserver[];
  /**
   * The repeat guard for the next chunk of a connection (trade-memory.ts), asked when the chunk is
   * sent: every earlier chunk of that connection has been reported by then.
   */
  guardOf?: (connection: number) => Float64Array | undefined;
  /**
   * The quantity bases for the next chunk of a connection (quantity-bases.ts), asked when the chunk
   * is sent, like the guard; transferred, so a copy of the caller's.
   */
  basesOf?: (connection: number) => Float64Array | undefined;
  /** This run's number in every record's source identity. Default: a random u32. */
  sourceRun?: number;
  /** The leader's lease (leader/lease-fence.ts), shared with the workers; absent: sending is not gated. */
  fence?: SharedArrayBuffer;
}

interface ConnectionQueue {
  filling: FrameChunk | undefined;
  sealed: FrameChunk[];
  inFlight: boolean;
  sequence: number;
}

/**
 * Attempts of one chunk before its frames are given up as undecoded. A task fails only when its
 * worker is torn down under it (the worker died, or the pool is closing): the chunk is run again on a
 * fresh worker under the same sequence, so any part of it already in Kafka carries the same source
 * identity and is recognised downstream. Bounded so a chunk that kills every worker cannot loop.
 */
const CHUNK_ATTEMPTS = 3;

const WORKER_FILE = fileURLToPath(new URL('./decode-worker.ts', import.meta.url));
/** Pack bytes beyond payload per frame: the 12-byte capture record header. */
const PACK_OVERHEAD_PER_FRAME = 12;

export class ProducerPipeline {
  private readonly pool: Piscina;
  private readonly queues = new Map<number, ConnectionQueue>();
  private readonly chunkBytes: number;
  private readonly flushIntervalMs: number;
  private readonly maxBufferedBytes: number;
  private readonly timer: NodeJS.Timeout;
  private bufferedBytes = 0;
  private full = false;
  private closed = false;
  private abandoned = false;
  /** Chunks are taken and sealed but none is sent (the write-ahead log's replay goes first). */
  private held = false;
  /** Connections whose chunks wait for `releaseConnection` (a handover's successor, until its cut). */
  private readonly heldConnections = new Set<number>();
  private draining = 0;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly observers: PipelineObserver[];
  private readonly options: ProducerPipelineOptions;
  /** Totals since start. */
  readonly totals = {
    frames: 0,
    packets: 0,
    malformed: 0,
    unknown: 0,
    produced: 0,
    producedTrades: 0,
    bufferFullEvents: 0,
    produceRetries: 0,
    producerResets: 0,
    /** Trades not produced because they repeated the instrument's previous trade. */
    repeats: 0,
    /** Frames given up undecoded (their chunk's decoding failed every attempt). */
    undecoded: 0,
  };

  constructor(options: ProducerPipelineOptions) {
    this.options = options;
    this.observers = [...(options.observers ?? [])];
    this.chunkBytes = options.chunkBytes ?? 1 << 20;
    this.flushIntervalMs = options.flushIntervalMs ?? 20;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 256 * 1024 * 1024;
    if (this.maxBufferedBytes < this.chunkBytes * 2) {
      throw new IngestorError('CONFIG_INVALID', 'maxBufferedBytes must hold at least two chunks');
    }
    const workerData: DecodeWorkerData = {
      brokers: options.brokers,
      topics: options.topics,
      clientId: 'feedpipe-ingestor',
      // A new number per run: chunk sequences restart at 0 with every process.
      sourceRun: options.sourceRun ?? randomInt(0, 2 ** 32),
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      ...(options.fence ? { fence: options.fence } : {}),
    };
    const threads = options.workers ?? 2;
    this.pool = new Piscina({
      filename: WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      // Several chunks per worker overlap one chunk's Kafka round trip with another's decoding.
      concurrentTasksPerWorker: 4,
      idleTimeout: 60_000,
      workerData,
      // The worker is TypeScript: load it through tsx like the rest of the workspace.
      execArgv: [...process.execArgv.filter((a) => !a.startsWith('--inspect')), '--import', 'tsx'],
    });
    this.timer = setInterval(() => this.flushAged(), Math.max(1, Math.floor(this.flushIntervalMs / 2)));
  }

  /** Adds an observer, told after those before it. */
  observe(observer: PipelineObserver): void {
    this.observers.push(observer);
  }

  get buffered(): number {
    return this.bufferedBytes;
  }

  /**
   * Until `release`, nothing is sent: frames are taken and sealed into chunks as usual, within the
   * same bound (the sockets pause at it). Lets records produced before this run's go first.
   */
  hold(): void {
    this.held = true;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    for (const [connection, queue] of this.queues) this.dispatch(connection, queue);
  }

  /** As `hold`, for one connection's chunks only. */
  holdConnection(connection: number): void {
    this.heldConnections.add(connection);
  }

  releaseConnection(connection: number): void {
    if (!this.heldConnections.delete(connection)) return;
    const queue = this.queues.get(connection);
    if (queue) this.dispatch(connection, queue);
  }

  /**
   * Resolves once everything `connection` delivered so far is acknowledged by Kafka (its other
   * connections keep flowing): the moment a handover may tell the successor what was produced.
   */
  async drainConnection(connection: number, pollMs = 5): Promise<void> {
    for (;;) {
      const queue = this.queues.get(connection);
      if (!queue || queueIdle(queue)) return;
      if (!queue.inFlight && queue.filling && queue.filling.frameCount > 0) {
        this.seal(connection, queue, queue.filling);
        queue.filling = undefined;
      }
      this.dispatch(connection, queue);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  get isFull(): boolean {
    return this.full;
  }

  /** Takes one received frame; returns false when the pipeline is at its bound (caller pauses input). */
  push(connection: number, frame: Uint8Array, receivedAtMicros: number): boolean {
    if (this.closed) throw new IngestorError('STOPPED', 'pipeline is closed');
    const queue = this.queueOf(connection);
    const now = Date.now();
    if (!queue.filling) queue.filling = this.newChunk(frame.byteLength);
    if (!queue.filling.tryAppend(frame, receivedAtMicros, now)) {
      this.seal(connection, queue, queue.filling);
      queue.filling = this.newChunk(frame.byteLength);
      queue.filling.tryAppend(frame, receivedAtMicros, now);
      this.dispatch(connection, queue);
    }
    this.bufferedBytes += frame.byteLength;
    this.totals.frames += 1;
    if (!this.full && this.bufferedBytes >= this.maxBufferedBytes) {
      this.full = true;
      this.totals.bufferFullEvents += 1;
      for (const o of this.observers) o.pressure?.(true, this.bufferedBytes);
    }
    return !this.full;
  }

  /** Sends everything held now and resolves when Kafka acknowledged all of it. */
  async drain(): Promise<void> {
    this.draining += 1;
    try {
      this.flushAged();
      if (this.isIdle()) return;
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    } finally {
      this.draining -= 1;
    }
  }

  async close(): Promise<void> {
    // A stop while held (the replay still running) must not wait forever for chunks never sent.
    this.release();
    for (const connection of [...this.heldConnections]) this.releaseConnection(connection);
    await this.drain();
    this.closed = true;
    clearInterval(this.timer);
    await this.pool.destroy();
  }

  /**
   * Stops without delivering: the workers are ended with their chunks unsent. Only for a process
   * that may send nothing more (its lease ran out): what it held is in its write-ahead log.
   */
  async abandon(): Promise<void> {
    this.abandoned = true;
    this.closed = true;
    clearInterval(this.timer);
    await this.pool.destroy();
  }

  private isIdle(): boolean {
    for (const queue of this.queues.values()) if (!queueIdle(queue)) return false;
    return true;
  }

  private queueOf(connection: number): ConnectionQueue {
    let queue = this.queues.get(connection);
    if (!queue) {
      queue = { filling: undefined, sealed: [], inFlight: false, sequence: 0 };
      this.queues.set(connection, queue);
    }
    return queue;
  }

  private newChunk(firstFrameBytes: number): FrameChunk {
    return new FrameChunk(Math.max(this.chunkBytes, firstFrameBytes + PACK_OVERHEAD_PER_FRAME));
  }

  /**
   * Seals each connection's filling chunk once it is old enough (or always while draining), but only
   * when nothing of that connection is in flight: while a chunk is out, the next one keeps growing,
   * so batches get larger exactly when the workers or Kafka are the bottleneck.
   */
  private flushAged(): void {
    const now = Date.now();
    for (const [connection, queue] of this.queues) {
      const filling = queue.filling;
      if (
        !queue.inFlight &&
        filling &&
        filling.frameCount > 0 &&
        (this.draining > 0 || now - filling.firstAtMs >= this.flushIntervalMs)
      ) {
        this.seal(connection, queue, filling);
        queue.filling = undefined;
      }
      this.dispatch(connection, queue);
    }
  }

  private seal(connection: number, queue: ConnectionQueue, chunk: FrameChunk): void {
    queue.sealed.push(chunk);
    for (const o of this.observers) o.sealed?.(connection, chunk.frameCount);
  }

  private dispatch(connection: number, queue: ConnectionQueue): void {
    if (queue.inFlight || this.closed || this.held || this.heldConnections.has(connection)) return;
    const chunk = queue.sealed.shift();
    if (!chunk) return;
    queue.inFlight = true;
    this.run(connection, queue, chunk, queue.sequence++, 1);
  }

  /** One attempt at a chunk; its connection's next chunk waits until this one is settled. */
  private run(
    connection: number,
    queue: ConnectionQueue,
    chunk: FrameChunk,
    sequence: number,
    attempt: number,
  ): void {
    // The pack is a copy of the chunk's bytes (toMessage), so the chunk can be sent again.
    const message = chunk.toMessage(connection, sequence);
    const guard = this.options.guardOf?.(connection);
    if (guard) message.guard = guard;
    const bases = this.options.basesOf?.(connection);
    if (bases) message.bases = bases;
    // Keep the receive times here (they are small); the frame bytes move to the worker.
    const receivedAt = chunk.receiveTimes();
    const transferList = [message.pack.buffer as ArrayBuffer];
    if (guard) transferList.push(guard.buffer as ArrayBuffer);
    if (bases) transferList.push(bases.buffer as ArrayBuffer);
    this.pool
      .run(message, { transferList })
      .then(
        (result: ChunkResult) => {
          this.account(result);
          const acknowledged = { result, receivedAtMicros: receivedAt, bufferedBytes: this.bufferedBytes };
          for (const o of this.observers) o.acknowledged?.(acknowledged);
          this.settle(connection, queue, chunk);
        },
        (error: unknown) => {
          // Abandoned (the lease ran out): the chunk stays in the write-ahead log, not counted as lost.
          if (this.abandoned) return;
          if (!this.closed && attempt < CHUNK_ATTEMPTS) {
            this.run(connection, queue, chunk, sequence, attempt + 1);
            return;
          }
          // Given up (or the pipeline is closing): every frame of the chunk is counted, never silent.
          this.totals.undecoded += chunk.frameCount;
          for (const o of this.observers) o.undecoded?.(connection, 'worker_failed', chunk.frameCount);
          process.stderr.write(
            `ingestor: ${chunk.frameCount} frames of connection ${connection} not decoded: decode worker failed ${attempt} times: ${(error as Error).message}\n`,
          );
          this.settle(connection, queue, chunk);
        },
      )
      .catch((error: unknown) => {
        // A throw of an observer (a bug of the caller): the chunk is in Kafka; go on with the next.
        process.stderr.write(`ingestor: chunk result handler failed: ${(error as Error).message}\n`);
        this.settle(connection, queue, chunk);
      });
  }

  /** The chunk is done with (decoded, or given up): its bytes leave the bound, the next one may go. */
  private settle(connection: number, queue: ConnectionQueue, chunk: FrameChunk): void {
    if (!queue.inFlight) return;
    queue.inFlight = false;
    this.bufferedBytes -= chunk.byteLength;
    if (this.full && this.bufferedBytes <= this.maxBufferedBytes / 2) {
      this.full = false;
      for (const o of this.observers) o.pressure?.(false, this.bufferedBytes);
    }
    if (this.draining > 0) this.flushAged();
    else this.dispatch(connection, queue);
    if (this.idleWaiters.length > 0 && this.isIdle()) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private account(result: ChunkResult): void {
    this.totals.packets += result.packets;
    this.totals.malformed += result.malformed;
    this.totals.unknown += result.unknown;
    this.totals.produceRetries += result.produceRetries;
    this.totals.producerResets += result.producerResets;
    this.totals.repeats += result.repeats;
    this.totals.produced += result.produced[0] + result.produced[1] + result.produced[2] + result.produced[3];
    this.totals.producedTrades += result.produced[0];
  }
}

/** Nothing of the connection is filling, sealed or in flight. */
function queueIdle(queue: ConnectionQueue): boolean {
  return !queue.inFlight && queue.sealed.length === 0 && (queue.filling?.frameCount ?? 0) === 0;
}
