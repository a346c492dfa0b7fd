/**
 * A TCP proxy in front of one Kafka broker that injects produce faults a real cluster shows at its
 * edges, so a test can drive a client through them on purpose instead of hoping for a race:
 *
 * - `drop`: some partitions of a produce request are taken out before it reaches the broker and
 *   answered NOT_LEADER_OR_FOLLOWER (6, retriable), while the rest of the same request is appended.
 *   This is what a fresh topic whose leaders are still being elected answers.
 * - `lose`: the request reaches the broker whole and is appended, but the answer of some partitions
 *   says REQUEST_TIMED_OUT (7, retriable): the client must retry with the same producer id, epoch
 *   and sequence so the broker recognises the batch and does not append it twice.
 * - `stateLost`: as `drop`, but the partitions taken out are answered OUT_OF_ORDER_SEQUENCE_NUMBER
 *   (45), what a broker that lost the producer's state answers: nothing of them was appended, and
 *   only a new producer id goes on (an idempotent producer's reset path).
 *
 * Metadata answers are rewritten so the client's later connections come back through the proxy.
 * It speaks just enough of the protocol for what @feedpipe/kafka-client sends (Metadata v1-v13,
 * flexible from v9; its batch producer's Produce v3-v8, non-flexible): request and response frames are int32 size-prefixed; a request header is
 * apiKey i16, apiVersion i16, correlationId i32, clientId nullable string; a response header is the
 * correlation id alone.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

const PRODUCE = 0;
const METADATA = 3;
const NOT_LEADER_OR_FOLLOWER = 6;
const REQUEST_TIMED_OUT = 7;
const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;

export type ProduceFault = 'drop' | 'lose' | 'stateLost';

export interface FaultPlan {
  /** Topics whose produce requests get faults. */
  topics: ReadonlySet<string> | readonly string[];
  /** How many matching produce requests (counted over all connections) get a fault. */
  requests: number;
  /** Which fault each faulted request gets, by its index among the faulted ones. Default alternates. */
  kindOf?: (index: number) => ProduceFault;
  /** Which partitions of a faulted request are hit. Default: odd partition numbers. */
  hits?: (partition: number) => boolean;
}

export interface KafkaFaultProxy {
  /** `127.0.0.1:port`, to give the client as its bootstrap broker. */
  readonly address: string;
  /** Faults injected so far, by kind. */
  readonly injected: Record<ProduceFault, number>;
  close(): Promise<void>;
}

interface Pending {
  apiKey: number;
  apiVersion: number;
  /** Partitions taken out of the request (`drop`, `stateLost`), answered with an error by the proxy. */
  dropped?: Map<string, number[]>;
  /** The error code the dropped partitions are answered with. */
  droppedCode?: number;
  /** Partitions whose answer is to be replaced by a timeout (`lose`). */
  lost?: Map<string, Set<number>>;
}

/** Reads big-endian fields from a frame, moving a cursor. */
class Reader {
  at: number;
  constructor(
    readonly buf: Buffer,
    at = 0,
  ) {
    this.at = at;
  }
  i16(): number {
    const v = this.buf.readInt16BE(this.at);
    this.at += 2;
    return v;
  }
  i32(): number {
    const v = this.buf.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  skip(n: number): void {
    this.at += n;
  }
  string(): string | null {
    const length = this.i16();
    if (length < 0) return null;
    const text = this.buf.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }
  bytes(): Buffer | null {
    const length = this.i32();
    if (length < 0) return null;
    const out = this.buf.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }
}

function i16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}
function i32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}
function str(s: string | null): Buffer {
  if (s === null) return i16(-1);
  const body = Buffer.from(s, 'utf8');
  return Buffer.concat([i16(body.length), body]);
}

/** Splits a byte stream into size-prefixed frames. */
class FrameSplitter {
  #held: Buffer = Buffer.alloc(0);
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    this.#held = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    while (this.#held.length >= 4) {
      const size = this.#held.readInt32BE(0);
      if (this.#held.length < 4 + size) return;
      onFrame(this.#held.subarray(4, 4 + size));
      this.#held = this.#held.subarray(4 + size);
    }
  }
}

function framed(body: Buffer): Buffer {
  return Buffer.concat([i32(body.length), body]);
}

/** Offset of the request body: past apiKey, apiVersion, correlationId and the client id. */
function requestBodyAt(frame: Buffer): number {
  const r = new Reader(frame, 8);
  r.string();
  return r.at;
}

interface ProduceTopic {
  name: string;
  partitions: { index: number; records: Buffer | null }[];
}

function parseProduceRequest(body: Buffer): {
  transactionalId: string | null;
  acks: number;
  timeout: number;
  topics: ProduceTopic[];
} {
  const r = new Reader(body);
  const transactionalId = r.string();
  const acks = r.i16();
  const timeout = r.i32();
  const topics: ProduceTopic[] = [];
  for (let t = r.i32(); t > 0; t--) {
    const name = r.string() ?? '';
    const partitions: ProduceTopic['partitions'] = [];
    for (let p = r.i32(); p > 0; p--) partitions.push({ index: r.i32(), records: r.bytes() });
    topics.push({ name, partitions });
  }
  return { transactionalId, acks, timeout, topics };
}

function encodeProduceRequest(req: ReturnType<typeof parseProduceRequest>): Buffer {
  const parts: Buffer[] = [str(req.transactionalId), i16(req.acks), i32(req.timeout), i32(req.topics.length)];
  for (const topic of req.topics) {
    parts.push(str(topic.name), i32(topic.partitions.length));
    for (const p of topic.partitions) {
      parts.push(i32(p.index));
      if (p.records === null) parts.push(i32(-1));
      else parts.push(i32(p.records.length), p.records);
    }
  }
  return Buffer.concat(parts);
}

/** Bytes of one partition's answer after its index and error code, for a produce version. */
function produceAnswerTailBytes(version: number): number {
  return 8 + 8 + (version >= 5 ? 8 : 0);
}

/**
 * Rewrites a produce answer: partitions in `lost` get REQUEST_TIMED_OUT, and the partitions of
 * `dropped` are added with `droppedCode` (NOT_LEADER_OR_FOLLOWER unless said otherwise).
 */
function rewriteProduceResponse(frame: Buffer, version: number, pending: Pending): Buffer {
  if (version > 8 || version < 3) throw new Error(`fault proxy: produce v${version} is not supported`);
  const r = new Reader(frame, 4);
  const topics = new Map<string, Buffer[]>();
  const order: string[] = [];
  const tail = produceAnswerTailBytes(version);
  for (let t = r.i32(); t > 0; t--) {
    const name = r.string() ?? '';
    const answers: Buffer[] = [];
    for (let p = r.i32(); p > 0; p--) {
      const start = r.at;
      const index = r.i32();
      r.i16();
      r.skip(tail);
      if (version >= 8) {
        for (let e = r.i32(); e > 0; e--) {
          r.i32();
          r.string();
        }
        r.string();
      }
      const answer = Buffer.from(frame.subarray(start, r.at));
      if (pending.lost?.get(name)?.has(index)) answer.writeInt16BE(REQUEST_TIMED_OUT, 4);
      answers.push(answer);
    }
    topics.set(name, answers);
    order.push(name);
  }
  const rest = frame.subarray(r.at);
  for (const [name, partitions] of pending.dropped ?? []) {
    let answers = topics.get(name);
    if (!answers) {
      answers = [];
      topics.set(name, answers);
      order.push(name);
    }
    for (const index of partitions) {
      const tailBytes = Buffer.alloc(tail, 0xff);
      const extra = version >= 8 ? Buffer.concat([i32(0), i16(-1)]) : Buffer.alloc(0);
      const code = pending.droppedCode ?? NOT_LEADER_OR_FOLLOWER;
      answers.push(Buffer.concat([i32(index), i16(code), tailBytes, extra]));
    }
  }
  const parts: Buffer[] = [frame.subarray(0, 4), i32(order.length)];
  for (const name of order) {
    const answers = topics.get(name) ?? [];
    parts.push(str(name), i32(answers.length), ...answers);
  }
  parts.push(rest);
  return Buffer.concat(parts);
}

/** Reads an unsigned varint at `r.at` (flexible versions' lengths and counts). */
function uvarint(r: Reader): number {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = r.buf.readUInt8(r.at);
    r.at += 1;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value;
    shift += 7;
  }
}

function putUvarint(value: number): Buffer {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** Skips a tagged-field section (count, then per field: tag, size, bytes). */
function skipTaggedFields(r: Reader): void {
  for (let n = uvarint(r); n > 0; n--) {
    uvarint(r);
    r.skip(uvarint(r));
  }
}

/**
 * The same for the flexible metadata versions (v9+, which @platformatic/kafka uses): the response
 * header ends with tagged fields, the broker array and its strings are compact (lengths as unsigned
 * varints plus one) and each broker ends with tagged fields.
 */
function rewriteFlexibleMetadataResponse(frame: Buffer, port: number): Buffer {
  const r = new Reader(frame, 4);
  skipTaggedFields(r);
  r.i32(); // throttle_time_ms
  const head = frame.subarray(0, r.at);
  const count = uvarint(r) - 1;
  const brokers: Buffer[] = [putUvarint(count + 1)];
  const host = Buffer.from('127.0.0.1');
  for (let b = 0; b < count; b++) {
    const nodeId = r.i32();
    r.skip(uvarint(r) - 1); // host
    r.i32(); // port
    const rackStart = r.at;
    const rackLength = uvarint(r);
    if (rackLength > 0) r.skip(rackLength - 1);
    const tagsStart = r.at;
    skipTaggedFields(r);
    brokers.push(
      i32(nodeId),
      putUvarint(host.length + 1),
      host,
      i32(port),
      frame.subarray(rackStart, tagsStart),
      frame.subarray(tagsStart, r.at),
    );
  }
  return Buffer.concat([head, ...brokers, frame.subarray(r.at)]);
}

/** Points every broker of a metadata answer at the proxy. */
function rewriteMetadataResponse(frame: Buffer, version: number, port: number): Buffer {
  if (version >= 9 && version <= 13) return rewriteFlexibleMetadataResponse(frame, port);
  if (version < 1 || version > 13) throw new Error(`fault proxy: metadata v${version} is not supported`);
  const r = new Reader(frame, 4);
  if (version >= 3) r.i32();
  const head = frame.subarray(0, r.at);
  const brokers: Buffer[] = [];
  const count = r.i32();
  for (let b = 0; b < count; b++) {
    const nodeId = r.i32();
    r.string();
    r.i32();
    const rack = r.string();
    brokers.push(i32(nodeId), str('127.0.0.1'), i32(port), str(rack));
  }
  return Buffer.concat([head, i32(count), ...brokers, frame.subarray(r.at)]);
}

export async function startKafkaFaultProxy(broker: string, plan: FaultPlan): Promise<KafkaFaultProxy> {
  const [host, portText] = broker.split(':');
  const targetPort = Number(portText);
  const faultTopics = new Set(plan.topics);
  const kindOf = plan.kindOf ?? ((i: number): ProduceFault => (i % 2 === 0 ? 'drop' : 'lose'));
  const hits = plan.hits ?? ((p: number) => p % 2 === 1);
  const injected: Record<ProduceFault, number> = { drop: 0, lose: 0, stateLost: 0 };
  let faulted = 0;
  const sockets = new Set<Socket>();

  /** Decides a produce request's fault and returns the frame to forward. */
  function onProduce(frame: Buffer, pending: Pending): Buffer {
    if (faulted >= plan.requests) return frame;
    const bodyAt = requestBodyAt(frame);
    const request = parseProduceRequest(frame.subarray(bodyAt));
    const matching = request.topics.filter((t) => faultTopics.has(t.name));
    const hitCount = matching.reduce((n, t) => n + t.partitions.filter((p) => hits(p.index)).length, 0);
    if (hitCount === 0) return frame;
    const kind = kindOf(faulted);
    faulted += 1;
    injected[kind] += 1;
    if (kind === 'lose') {
      pending.lost = new Map(
        matching.map((t) => [t.name, new Set(t.partitions.filter((p) => hits(p.index)).map((p) => p.index))]),
      );
      return frame;
    }
    pending.dropped = new Map();
    pending.droppedCode = kind === 'stateLost' ? OUT_OF_ORDER_SEQUENCE_NUMBER : NOT_LEADER_OR_FOLLOWER;
    for (const topic of matching) {
      const removed = topic.partitions.filter((p) => hits(p.index)).map((p) => p.index);
      if (removed.length > 0) pending.dropped.set(topic.name, removed);
      topic.partitions = topic.partitions.filter((p) => !hits(p.index));
    }
    request.topics = request.topics.filter((t) => t.partitions.length > 0);
    return Buffer.concat([frame.subarray(0, bodyAt), encodeProduceRequest(request)]);
  }

  const server: Server = createServer((client) => {
    const upstream = tcpConnect(targetPort, host ?? '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const pendingById = new Map<number, Pending>();
    const fromClient = new FrameSplitter();
    const fromBroker = new FrameSplitter();
    client.on('data', (chunk: Buffer) =>
      fromClient.push(chunk, (frame) => {
        const pending: Pending = { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2) };
        const correlationId = frame.readInt32BE(4);
        // Faults go into the produce versions the proxy reads (v3-8, the feed's BatchProducer); a
        // flexible request (v9+: @platformatic/kafka's JsonProducer, the ingestor's ledger of gaps
        // among them) passes through as it is.
        const faultable = pending.apiKey === PRODUCE && pending.apiVersion >= 3 && pending.apiVersion <= 8;
        const out = faultable ? onProduce(frame, pending) : frame;
        const acks = faultable ? parseProduceRequest(frame.subarray(requestBodyAt(frame))).acks : 1;
        if (pending.dropped && out.length > 0 && acks !== 0) {
          // Everything of the request was dropped: nothing to forward; answer from the proxy alone.
          const remaining = parseProduceRequest(out.subarray(requestBodyAt(out)));
          if (remaining.topics.length === 0) {
            const empty = Buffer.concat([i32(correlationId), i32(0), i32(0)]);
            client.write(framed(rewriteProduceResponse(empty, pending.apiVersion, pending)));
            return;
          }
        }
        pendingById.set(correlationId, pending);
        upstream.write(framed(out));
      }),
    );
    upstream.on('data', (chunk: Buffer) =>
      fromBroker.push(chunk, (frame) => {
        const correlationId = frame.readInt32BE(0);
        const pending = pendingById.get(correlationId);
        pendingById.delete(correlationId);
        let out = frame;
        if (pending?.apiKey === METADATA) out = rewriteMetadataResponse(frame, pending.apiVersion, proxyPort);
        else if (pending?.apiKey === PRODUCE && (pending.dropped || pending.lost))
          out = rewriteProduceResponse(frame, pending.apiVersion, pending);
        client.write(framed(out));
      }),
    );
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${proxyPort}`,
    injected,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
