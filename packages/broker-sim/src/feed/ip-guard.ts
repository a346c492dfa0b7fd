/**
 * The spec's "more than 10 repeated invalid connection attempts may temporarily block the source IP".
 * Invalid attempts (rejected parameters, failed authentication) are counted per address within a
 * sliding window; the attempt that exceeds the limit blocks the address for `blockMs`. A successful
 * connection clears the count.
 */
export interface IpBlockPolicy {
  /** Invalid attempts tolerated within the window; one more blocks the address. Default 10. */
  maxInvalidAttempts: number;
  /** Window over which invalid attempts are counted, ms. Default 60 000. */
  windowMs: number;
  /** How long a blocked address is refused, ms. Default 60 000. */
  blockMs: number;
}

export const DEFAULT_IP_BLOCK_POLICY: IpBlockPolicy = {
  maxInvalidAttempts: 10,
  windowMs: 60_000,
  blockMs: 60_000,
};

interface AddressRecord {
  windowStart: number;
  invalid: number;
  blockedUntil: number;
}

/** Addresses tracked at most; the oldest entry is dropped beyond it, so a scan cannot grow memory. */
const MAX_TRACKED_ADDRESSES = 10_000;

export class InvalidAttemptGuard {
  private readonly records = new Map<string, AddressRecord>();

  constructor(
    private readonly policy: IpBlockPolicy,
    private readonly now: () => number,
  ) {}

  isBlocked(address: string): boolean {
    const record = this.records.get(address);
    return record !== undefined && record.blockedUntil > this.now();
  }

  /** Counts one invalid attempt; returns true when this attempt made the address blocked. */
  recordInvalid(address: string): boolean {
    const now = this.now();
    let record = this.records.get(address);
    if (record === undefined || now - record.windowStart > this.policy.windowMs) {
      if (record === undefined && this.records.size >= MAX_TRACKED_ADDRESSES) {
        const oldest = this.records.keys().next().value;
        if (oldest !== undefined) this.records.delete(oldest);
      }
      record = { windowStart: now, invalid: 0, blockedUntil: record?.blockedUntil ?? 0 };
      this.records.set(address, record);
    }
    record.invalid++;
    if (record.invalid > this.policy.maxInvalidAttempts) {
      record.blockedUntil = now + this.policy.blockMs;
      record.invalid = 0;
      record.windowStart = now;
      return true;
    }
    return false;
  }

  recordSuccess(address: string): void {
    const record = this.records.get(address);
    if (record !== undefined && record.blockedUntil <= this.now()) this.records.delete(address);
  }

  /** Lifts every block (tests, or an operator resetting the simulator). */
  clear(): void {
    this.records.clear();
  }
}
