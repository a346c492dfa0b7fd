// Keeps a shown history current: live trades from the stream folded into bars when the API has a
// stream, else (or once the stream gives up) the latest bars re-read every POLL_MS. Each bar goes
// to the chart as a single update; nothing here redraws the history.
import { applyTrade, barsFromRows, slotOf } from './chart-data.js';
import { openLiveStream } from './live-stream.js';

/** Without a live stream, the latest bars are asked for this often. */
export const POLL_MS = 2000;
/** With a live stream, settled bars are re-read this often to set their volume right (see applyTrade). */
const RECONCILE_MS = 30_000;

const iso = (sec) => new Date(sec * 1000).toISOString();

export class BarFollower {
  /**
   * `chart` is the price chart; `onBar(bar)` is told of each bar applied; `onReload()` when a bar
   * is too far ahead for an update (the history is loaded again); `onStatus(text)` says how the
   * chart is kept current.
   */
  constructor({ api, securityId, interval, step, liveStream, chart, onBar, onReload, onStatus }) {
    Object.assign(this, { api, securityId, interval, step, chart, onBar, onReload, onStatus });
    this.timers = [];
    this.cumulative = undefined;
    this.stopped = false;
    if (liveStream) this.openStream();
    else this.poll('refreshing every 2 s (this API has no live stream)');
  }

  apply(bar) {
    if (this.stopped) return;
    if (!this.chart.updateBar(bar)) return void this.onReload();
    this.onBar(bar);
  }

  openStream() {
    this.onStatus('connecting to the live stream…');
    this.stream = openLiveStream(this.api, this.securityId, {
      onTrade: (record) => {
        const current = this.chart.bar(slotOf(record.ltt, this.step));
        const result = applyTrade(current, record, this.step, this.cumulative);
        this.cumulative = result.cumulative;
        this.apply(result.bar);
      },
      onState: (state) => {
        if (this.stopped) return;
        if (state === 'live') this.onStatus('live');
        else if (state === 'retrying') this.onStatus('live stream interrupted, reconnecting…');
        else if (state === 'lost') void this.refresh(true);
        else if (state === 'down') this.poll(`live stream unavailable: refreshing every ${POLL_MS / 1000} s`);
      },
    });
    this.timers.push(setInterval(() => this.refresh(true), RECONCILE_MS));
  }

  poll(status) {
    this.onStatus(status);
    this.timers.push(setInterval(() => this.refresh(false), POLL_MS));
  }

  /**
   * Re-reads the latest bars. `settledOnly` (with the live stream): only bars closed a whole
   * interval ago, which the store has complete, while newer trades may still be on their way to it.
   */
  async refresh(settledOnly) {
    const last = this.chart.lastBar();
    const now = slotOf(Date.now() / 1000, this.step);
    // From the latest bar shown, or two intervals back when that is older (a quiet instrument) or
    // ahead of this browser's clock (the API refuses a range starting in the future).
    const fromSec = Math.min(Math.max(last ? last.time : 0, now - 2 * this.step), now);
    try {
      const body = await this.api.json(
        `/v1/instruments/${this.securityId}/bars?interval=${this.interval}&from=${encodeURIComponent(iso(fromSec))}`,
      );
      for (const bar of barsFromRows(body)) if (!settledOnly || bar.time < now - this.step) this.apply(bar);
    } catch {
      // The next refresh tries again; a refused key has already signed the page out.
    }
  }

  stop() {
    this.stopped = true;
    this.stream?.close();
    for (const timer of this.timers) clearInterval(timer);
  }
}
