/**
 * Generated captures of trades for the benchmarks: `records` trades in frames of `perFrame`,
 * instruments in turn (security ids from 1,000,000), every trade one lot more than its
 * instrument's last, so per instrument the volume is a sequence number and a lost or doubled trade
 * shows. Received from an hour ago on: inside every table's retention (a fixed date once fell past
 * the raw feed's 90-day TTL, and the stored rows left before they were counted).
 */
import { CaptureWriter, encodeFrame, type FeedRecord } from '@feedpipe/codec';

export interface TradeCaptureOptions {
  records: number;
  instruments: number;
  perFrame: number;
  /** Receive time (epoch microseconds) of a frame whose first trade is the `written`-th. */
  receivedAt: (written: number, startMicros: number) => number;
}

export async function writeTradeCapture(file: string, options: TradeCaptureOptions): Promise<void> {
  const { records, instruments, perFrame } = options;
  const writer = await CaptureWriter.open(file);
  const volumes = new Uint32Array(instruments);
  const startSecond = Math.floor(Date.now() / 1000) - 3_600;
  const startMicros = startSecond * 1_000_000;
  let written = 0;
  while (written < records) {
    const at = options.receivedAt(written, startMicros);
    const frame: FeedRecord[] = [];
    for (let i = 0; i < perFrame && written < records; i++, written++) {
      const slot = written % instruments;
      volumes[slot] = (volumes[slot] as number) + 1;
      // Each round of the instruments trades a second later.
      const second = startSecond + Math.floor(written / instruments);
      frame.push({
        type: 'trade',
        segment: 14,
        securityId: 1_000_000 + slot,
        ltp: 100 + (written % 997) / 100,
        volume: volumes[slot] as number,
        ltt: second,
        lut: second,
      });
    }
    if (!writer.write(encodeFrame(frame), at)) await writer.drain();
  }
  await writer.close();
}
