/**
 * Receive-to-ack latency of frames, in log-spaced buckets (about 2% wide) from 10 µs to ~100 s:
 * constant memory whatever the rate, and percentiles accurate to the bucket width.
 */
const BUCKETS = 900;
const MIN_MICROS = 10;
const GROWTH = 1.02;
const LOG_GROWTH = Math.log(GROWTH);

export class LatencyRecorder {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;

  record(micros: number): void {
    const bucket = this.bucketOf(micros);
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
    this.total += 1;
  }

  /** One sample per frame: the chunk's ack time minus each frame's receive time. */
  recordFrames(receivedAtMicros: Float64Array, ackedAtMicros: number): void {
    for (let i = 0; i < receivedAtMicros.length; i++)
      this.record(ackedAtMicros - (receivedAtMicros[i] as number));
  }

  get count(): number {
    return this.total;
  }

  /** The latency in milliseconds below which a fraction `q` of the samples fall. */
  percentileMs(q: number): number {
    if (this.total === 0) return 0;
    const target = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i] as number;
      if (seen >= target) return (MIN_MICROS * GROWTH ** (i + 1)) / 1000;
    }
    return (MIN_MICROS * GROWTH ** BUCKETS) / 1000;
  }

  reset(): void {
    this.counts.fill(0);
    this.total = 0;
  }

  private bucketOf(micros: number): number {
    if (!(micros > MIN_MICROS)) return 0;
    return Math.min(BUCKETS - 1, Math.floor(Math.log(micros / MIN_MICROS) / LOG_GROWTH));
  }
}
