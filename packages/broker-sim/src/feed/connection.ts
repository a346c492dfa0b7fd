/**
 * One accepted feed connection: who it is, what it subscribed to, its outgoing frame and its
 * heartbeat state. Market data is appended to `builder` and sent as one WebSocket message per
 * `maxPacketsPerMessage` packets; all sends of one tick go out under one `socket.cork()`, so a tick
 * costs one write syscall per connection however many messages it holds.
 */
import type { Socket } from 'node:net';
import { FrameBuilder } from '@feedpipe/codec';
import { WebSocket } from 'ws';
import type { AuthType } from './credentials.js';

export interface ConnectionCounters {
  /** Packets handed to the socket. */
  packets: number;
  /** WebSocket messages handed to the socket. */
  messages: number;
  /** Payload bytes handed to the socket. */
  bytes: number;
  /** Live packets not sent because the socket was over `maxBufferedBytes` (the client falls behind). */
  skipped: number;
}

export interface ConnectionInfo {
  id: number;
  clientId: string;
  authType: AuthType;
  remoteAddress: string;
  openedAtMs: number;
  tradeSubscriptions: number;
  ohlcSubscriptions: number;
  bufferedBytes: number;
  missedPings: number;
  counters: Readonly<ConnectionCounters>;
}

const SEND_OPTIONS = { binary: true, compress: false } as const;

export class FeedConnection {
  readonly tradeSubs = new Set<number>();
  readonly ohlcSubs = new Set<number>();
  /** Universe indices whose Circuit Limit / 52-Week went out zero-filled and await the real values. */
  readonly pendingReference = new Set<number>();
  readonly builder: FrameBuilder;
  readonly counters: ConnectionCounters = { packets: 0, messages: 0, bytes: 0, skipped: 0 };
  /** Pings sent and not yet answered, in a row. */
  missedPings = 0;
  awaitingPong = false;
  /** Fault injection: do not answer the client's pings. */
  ignoringPings = false;
  /** Fault injection: send nothing at all (no data, no pings) while the TCP connection stays up. */
  stalled = false;
  /** Set once the connection is being closed: no more sends. */
  closing = false;
  /** Inside a tick's batch: the socket is corked and the connection is on the tick's flush list. */
  inBatch = false;

  constructor(
    readonly id: number,
    readonly clientId: string,
    readonly authType: AuthType,
    readonly remoteAddress: string,
    readonly openedAtMs: number,
    readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly maxPacketsPerMessage: number,
    private readonly maxBufferedBytes: number,
    /** The credential it connected with, checked again while it is open (never exposed in info()). */
    readonly token: string,
  ) {
    this.builder = new FrameBuilder(Math.min(1 << 20, Math.max(4096, maxPacketsPerMessage * 27 + 64)));
  }

  get subscriptionCount(): number {
    return this.tradeSubs.size + this.ohlcSubs.size;
  }

  private writableTick = -1;
  private writableThisTick = false;

  /**
   * `writable`, evaluated once per generator tick: ws computes bufferedAmount through several
   * property reads, too costly per packet at millions per second. A connection can therefore overshoot
   * the bound by one tick's worth of data, which the tick budget caps.
   */
  writableIn(tick: number): boolean {
    if (tick !== this.writableTick) {
      this.writableTick = tick;
      this.writableThisTick = this.writable;
    }
    return this.writableThisTick;
  }

  /** Whether market data may be queued now: open, not faulted, and under the buffered-bytes bound. */
  get writable(): boolean {
    return (
      !this.closing &&
      !this.stalled &&
      this.ws.readyState === WebSocket.OPEN &&
      this.ws.bufferedAmount < this.maxBufferedBytes
    );
  }

  /** Corks the socket for the rest of the tick; the caller puts the connection on its flush list. */
  beginBatch(): void {
    this.inBatch = true;
    this.socket.cork();
  }

  /** Sends what is buffered and uncorks: the whole tick leaves in one write. */
  endBatch(): void {
    this.flush();
    this.inBatch = false;
    this.socket.uncork();
  }

  /** Makes room for `packets` more in the current message, sending it first if they would not fit. */
  reserve(packets: number): void {
    const count = this.builder.packetCount;
    if (count !== 0 && count + packets > this.maxPacketsPerMessage) this.flush();
  }

  flush(): void {
    const packets = this.builder.packetCount;
    if (packets === 0) return;
    if (this.closing || this.ws.readyState !== WebSocket.OPEN) {
      this.builder.reset();
      return;
    }
    // toBytes copies: ws keeps a reference to what it is given until the socket has written it.
    const bytes = this.builder.toBytes();
    this.builder.reset();
    this.ws.send(bytes, SEND_OPTIONS);
    this.counters.packets += packets;
    this.counters.messages++;
    this.counters.bytes += bytes.byteLength;
  }

  /** Sends `bytes` as a message of its own, after whatever market data was already batched. */
  sendAlone(bytes: Uint8Array): void {
    this.flush();
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(bytes, SEND_OPTIONS);
    this.counters.messages++;
    this.counters.bytes += bytes.byteLength;
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      clientId: this.clientId,
      authType: this.authType,
      remoteAddress: this.remoteAddress,
      openedAtMs: this.openedAtMs,
      tradeSubscriptions: this.tradeSubs.size,
      ohlcSubscriptions: this.ohlcSubs.size,
      bufferedBytes: this.ws.bufferedAmount,
      missedPings: this.missedPings,
      counters: { ...this.counters },
    };
  }
}
