/**
 * The wall clock in epoch microseconds, as every thread of the ingestor stamps receive and produce
 * times: the time origin plus the monotonic clock, so stamps within a thread never step back.
 */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
