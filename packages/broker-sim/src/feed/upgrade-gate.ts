/**
 * The checks an upgrade request passes before the WebSocket handshake, in order: fault-injected
 * refusal (EOF or 503), blocked address (HTTP 429), query parameters (HTTP 400, an invalid attempt),
 * total connection cap (HTTP 503). It also owns the invalid-attempt accounting that auth failures
 * after the handshake feed into.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ConnectParams, parseConnectParams } from './connect-params.js';
import type { UpgradeRefusalMode } from './faults.js';
import { dropUpgrade, refuseUpgrade } from './http-refusal.js';
import { InvalidAttemptGuard, type IpBlockPolicy } from './ip-guard.js';

export interface UpgradeCounters {
  accepted: number;
  badRequest: number;
  blocked: number;
  overCapacity: number;
  refusedByFault: number;
}

export class UpgradeGate {
  readonly counters: UpgradeCounters = {
    accepted: 0,
    badRequest: 0,
    blocked: 0,
    overCapacity: 0,
    refusedByFault: 0,
  };
  /** Addresses that became blocked. */
  ipBlocks = 0;
  private readonly guard: InvalidAttemptGuard;
  private refuseUntilMs = 0;
  private refuseMode: UpgradeRefusalMode = 'eof';

  constructor(
    policy: IpBlockPolicy,
    private readonly maxConnections: number,
  ) {
    // Real time, not the model clock: blocks and refusals are about the network, and a test's fake
    // market clock must not freeze them.
    this.guard = new InvalidAttemptGuard(policy, Date.now);
  }

  /**
   * Answers and closes the socket if the upgrade is refused; otherwise returns the parameters and the
   * peer address for the handshake.
   */
  admit(
    req: IncomingMessage,
    socket: Duplex,
    openConnections: number,
  ): { params: ConnectParams; address: string } | undefined {
    if (this.refuseUntilMs > Date.now()) {
      this.counters.refusedByFault++;
      if (this.refuseMode === 'eof') dropUpgrade(socket);
      else refuseUpgrade(socket, 503, 'upgrades are refused for a while');
      return undefined;
    }
    const address = (socket as Socket).remoteAddress ?? 'unknown';
    if (this.guard.isBlocked(address)) {
      this.counters.blocked++;
      refuseUpgrade(socket, 429, 'too many invalid connection attempts from this address; try later');
      return undefined;
    }
    const parsed = parseConnectParams(req.url);
    if (!parsed.ok) {
      this.counters.badRequest++;
      this.recordInvalid(address);
      refuseUpgrade(socket, 400, parsed.problem);
      return undefined;
    }
    if (openConnections >= this.maxConnections) {
      this.counters.overCapacity++;
      refuseUpgrade(socket, 503, 'connection capacity reached');
      return undefined;
    }
    return { params: parsed.params, address };
  }

  recordInvalid(address: string): void {
    if (this.guard.recordInvalid(address)) this.ipBlocks++;
  }

  recordSuccess(address: string): void {
    this.guard.recordSuccess(address);
  }

  refuseUntil(untilMs: number, mode: UpgradeRefusalMode): void {
    this.refuseUntilMs = untilMs;
    this.refuseMode = mode;
  }

  clearIpBlocks(): void {
    this.guard.clear();
  }
}
