/**
 * Fault injection for tests of feed clients: the failure modes the spec names (abnormal close,
 * silent peers, bad frames, error packets, refused upgrades), triggered on purpose.
 */
import { type FeedErrorCode, FrameBuilder, SEGMENT_INX_EQ } from '@feedpipe/codec';
import { mix32 } from '../market/prng.js';
import type { FeedConnection } from './connection.js';

/** What the faults need from the server; kept narrow so the server's internals stay private. */
export interface FaultHost {
  connection(id: number): FeedConnection;
  /** The open connections of a client id. */
  connectionsOf(clientId: string): readonly FeedConnection[];
  endWithError(c: FeedConnection, code: number): void;
  abort(c: FeedConnection): void;
  refuseUpgradesUntil(untilMs: number, mode: UpgradeRefusalMode): void;
  clearIpBlocks(): void;
  seed: number;
}

/** 'eof': close the TCP connection without an HTTP response; 'http-503': answer 503. */
export type UpgradeRefusalMode = 'eof' | 'http-503';

export class FeedFaults {
  constructor(private readonly host: FaultHost) {}

  /** Abnormal close: the TCP connection is destroyed without a close frame, the client sees 1006. */
  abort(connectionId: number): void {
    this.host.abort(this.host.connection(connectionId));
  }

  /** The server stops (or resumes) answering the client's pings; data keeps flowing. */
  ignorePings(connectionId: number, ignore = true): void {
    this.host.connection(connectionId).ignoringPings = ignore;
  }

  /**
   * A stalled peer: the TCP connection stays up but nothing is sent (no data, no pings, no pongs) and
   * requests are ignored, the case only a client's stale-connection detection can find.
   */
  stall(connectionId: number, stalled = true): void {
    this.host.connection(connectionId).stalled = stalled;
  }

  /** A message whose only packet is cut short: its length byte says 27, the frame ends after 20 bytes. */
  sendTruncatedFrame(connectionId: number): void {
    const c = this.host.connection(connectionId);
    const whole = new FrameBuilder(64).trade(SEGMENT_INX_EQ, 1_000_001, 1.5, 1, 1, 1).toBytes();
    c.sendAlone(whole.subarray(0, 20));
  }

  /** A message of `length` pseudo-random bytes (deterministic per seed and connection). */
  sendGarbageFrame(connectionId: number, length = 64): void {
    const c = this.host.connection(connectionId);
    const bytes = new Uint8Array(Math.max(1, Math.min(length, 65_536)));
    for (let n = 0; n < bytes.length; n++)
      bytes[n] = mix32(this.host.seed ^ (connectionId * 65_537 + n)) & 0xff;
    c.sendAlone(bytes);
  }

  /**
   * A text (opcode 1) message: the feed is binary only, so a client should count and skip it. The
   * text is sent as given; tests pass fixed strings.
   */
  sendTextFrame(connectionId: number, text = '{"unexpected":"text"}'): void {
    const c = this.host.connection(connectionId);
    c.flush();
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(text, { binary: false, compress: false });
  }

  /** An Error packet (805-809) alone in its message, then the server closes the connection. */
  sendErrorAndClose(connectionId: number, code: FeedErrorCode): void {
    this.host.endWithError(this.host.connection(connectionId), code);
  }

  /**
   * Every open connection of `clientId` gets the Error packet alone, then is closed: with 807, what
   * the service does when the token they share expires (combine with an authenticator that now
   * refuses that token to make the expiry stick). Returns how many connections were ended.
   */
  sendErrorToClient(clientId: string, code: FeedErrorCode): number {
    const connections = [...this.host.connectionsOf(clientId)];
    for (const c of connections) this.host.endWithError(c, code);
    return connections.length;
  }

  /** Refuses every upgrade for `durationMs` (already open connections are not affected). */
  refuseUpgrades(durationMs: number, mode: UpgradeRefusalMode = 'eof'): void {
    this.host.refuseUpgradesUntil(Date.now() + Math.max(0, durationMs), mode);
  }

  /** Lifts IP blocks and forgets counted invalid attempts. */
  clearIpBlocks(): void {
    this.host.clearIpBlocks();
  }
}
