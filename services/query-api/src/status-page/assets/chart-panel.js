// The chart panel: which instrument, interval and zone are shown; loading a history (bars and the
// gap ledger) when one of them changes, then keeping it current (bar-follower.js); the OHLC readout,
// the gap list and the messages. One load at a time: each load takes a generation number, and the
// answers of an older one are dropped.
import { BarFollower } from './bar-follower.js';
import {
  bandsFromGaps,
  barsFromRows,
  clockIn,
  formatPrice,
  formatSlot,
  formatVolume,
  INTERVALS,
  ZONES,
} from './chart-data.js';
import { PriceChart } from './price-chart.js';

const $ = (id) => document.getElementById(id);
const iso = (sec) => new Date(sec * 1000).toISOString();

/**
 * Indian segments have no live feed here: their chart is bars of the quotes the quote poller stores
 * (/quote-bars, market.quotes), reloaded every QUOTE_RELOAD_MS instead of followed live.
 */
const QUOTED_SEGMENTS = new Set(['NSE_EQ', 'BSE_EQ', 'NSE_FNO', 'BSE_FNO', 'IDX_I']);
const QUOTE_RELOAD_MS = 5000;
const nameOf = (m) =>
  m.symbol ? `${m.symbol} (${m.segment ?? 'id'} ${m.securityId})` : `security id ${m.securityId}`;

function windowText(windowSec) {
  if (windowSec < 3600) return `${windowSec / 60} minutes`;
  if (windowSec < 86_400) return `${windowSec / 3600} hours`;
  return `${windowSec / 86_400} days`;
}

function setMessage(text, kind = 'info') {
  const box = $('chart-message');
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = text === '';
}

function renderGaps(bands, zone) {
  $('gap-list').replaceChildren(
    ...bands.map((b) =>
      Object.assign(document.createElement('li'), {
        textContent: `${clockIn(b.fromSec * 1000, zone)} – ${clockIn(b.toSec * 1000, zone)}: ${b.cause}${b.connection !== null ? `, connection ${b.connection}` : ''}`,
      }),
    ),
  );
  $('gaps').hidden = bands.length === 0;
}

export class ChartPanel {
  constructor({ api, liveStream, gapLedger, interval }) {
    this.api = api;
    this.liveStream = liveStream;
    // 'absent' once the API shows it has no gap ledger: charts work without bands, and it is not asked again.
    this.gapLedger = gapLedger ? 'unknown' : 'absent';
    this.container = $('chart');
    this.chart = new PriceChart(this.container, { onHover: (hover) => this.showReadout(hover) });
    this.instrument = undefined;
    this.interval = interval;
    this.zone = ZONES.IST;
    this.generation = 0;
    this.bands = [];
    this.hovering = false;
    this.follower = undefined;
  }

  /** The bar under the crosshair, or the latest one when the pointer is off the chart. */
  showReadout(hover) {
    this.hovering = hover !== undefined;
    const step = INTERVALS[this.interval].step;
    const bar = hover ? hover.bar : this.chart.lastBar();
    const latest = bar ? `last: ${formatSlot(bar.time + this.zone.offsetSec, step, this.zone)}` : '';
    const readout = $('readout');
    readout.dataset.time = bar ? String(bar.time) : '';
    readout.dataset.empty = bar ? 'false' : 'true';
    $('readout-time').textContent = hover ? hover.label : latest;
    for (const field of ['open', 'high', 'low', 'close'])
      $(`readout-${field}`).textContent = formatPrice(bar?.[field]);
    $('readout-volume').textContent = formatVolume(bar?.volume);
  }

  async loadGaps(securityId, fromSec, toSec) {
    if (this.gapLedger === 'absent') return [];
    try {
      const body = await this.api.json(
        `/v1/data-quality/gaps?from=${encodeURIComponent(iso(fromSec))}&to=${encodeURIComponent(iso(toSec))}&securityId=${securityId}`,
      );
      this.gapLedger = 'present';
      return bandsFromGaps(body, securityId);
    } catch (error) {
      if (error.auth) throw error;
      if (error.status === 404 && this.gapLedger !== 'present') this.gapLedger = 'absent';
      return [];
    }
  }

  describe(bars) {
    const last = bars.at(-1);
    const what = `${nameOf(this.instrument)}, ${INTERVALS[this.interval].label} candles`;
    $('chart-title').textContent = `${nameOf(this.instrument)} · ${INTERVALS[this.interval].label} candles`;
    this.container.setAttribute(
      'aria-label',
      `Candlestick chart of ${what}: ${bars.length} with trades${last ? `, last close ${formatPrice(last.close)}` : ''}`,
    );
  }

  async load() {
    const mine = ++this.generation;
    this.stopFollowing();
    const { instrument, interval, zone } = this;
    const { step, windowSec } = INTERVALS[interval];
    const toSec = Date.now() / 1000;
    const fromSec = toSec - windowSec;
    this.container.dataset.state = 'loading';
    setMessage(`Loading ${nameOf(instrument)}…`);
    try {
      const quoted = QUOTED_SEGMENTS.has(instrument.segment);
      const route = quoted ? 'quote-bars' : 'bars';
      const [barsBody, bands] = await Promise.all([
        this.api.json(
          `/v1/instruments/${instrument.securityId}/${route}?interval=${interval}&from=${encodeURIComponent(iso(fromSec))}`,
        ),
        this.loadGaps(instrument.securityId, fromSec, toSec),
      ]);
      if (mine !== this.generation) return;
      const bars = barsFromRows(barsBody);
      this.bands = bands;
      this.chart.show(bars, { step, zone, toSec, gapBands: bands });
      renderGaps(bands, zone);
      this.describe(bars);
      this.showReadout(undefined);
      this.container.dataset.state = 'shown';
      setMessage(
        bars.length > 0
          ? ''
          : `No ${quoted ? 'quotes' : 'trades'} of ${nameOf(instrument)} in the last ${windowText(windowSec)}; new ones appear here as they arrive.`,
      );
      if (quoted) {
        $('live-state').textContent = 'quote bars, polled';
        this.quoteTimer = setTimeout(() => {
          if (mine === this.generation) void this.load();
        }, QUOTE_RELOAD_MS);
      } else this.follow(mine);
    } catch (error) {
      if (error.auth || mine !== this.generation) return;
      this.container.dataset.state = 'error';
      setMessage(`Could not load ${nameOf(instrument)}: ${error.message}`, 'error');
    }
  }

  follow(mine) {
    this.follower = new BarFollower({
      api: this.api,
      securityId: this.instrument.securityId,
      interval: this.interval,
      step: INTERVALS[this.interval].step,
      liveStream: this.liveStream,
      chart: this.chart,
      onBar: () => {
        if (!this.hovering) this.showReadout(undefined);
      },
      onReload: () => {
        if (mine === this.generation) void this.load();
      },
      onStatus: (text) => {
        $('live-state').textContent = text;
      },
    });
  }

  stopFollowing() {
    clearTimeout(this.quoteTimer);
    this.follower?.stop();
    this.follower = undefined;
  }

  /** The instrument and interval in the address (never the key), so a reload or a link shows the same. */
  remember() {
    const params = new URLSearchParams(location.search);
    if (this.instrument)
      params.set('instrument', this.instrument.symbol ?? String(this.instrument.securityId));
    else params.delete('instrument');
    params.set('interval', this.interval);
    history.replaceState(null, '', `${location.pathname}?${params}${location.hash}`);
  }

  /** Shows an instrument (a match of the search) unless it is the one shown. */
  show(match) {
    if (this.instrument?.securityId === match.securityId && this.container.dataset.state !== 'unknown')
      return;
    this.instrument = match;
    this.remember();
    void this.load();
  }

  /** Nothing matches what was typed: say so, and leave no other instrument's candles on screen. */
  unknown(query) {
    this.generation += 1;
    this.stopFollowing();
    this.instrument = undefined;
    this.bands = [];
    this.remember();
    this.chart.clear();
    renderGaps([], this.zone);
    this.showReadout(undefined);
    $('chart-title').textContent = 'No instrument';
    this.container.setAttribute('aria-label', 'Empty chart: no instrument selected');
    this.container.dataset.state = 'unknown';
    $('live-state').textContent = '';
    setMessage(
      `No instrument matches “${query}”. Type a symbol or a security id; the suggestions list the instruments the pipeline knows.`,
      'warning',
    );
  }

  hint(text) {
    setMessage(text);
  }

  changeInterval(interval) {
    this.interval = interval;
    this.remember();
    if (this.instrument) void this.load();
  }

  /** Another display zone: the shown history is drawn again with shifted times, nothing is fetched. */
  changeZone(zone) {
    this.zone = zone;
    if (!this.instrument || this.container.dataset.state !== 'shown') return;
    const { step } = INTERVALS[this.interval];
    this.chart.show(this.chart.bars(), { step, zone, toSec: Date.now() / 1000, gapBands: this.bands });
    renderGaps(this.bands, zone);
    this.showReadout(undefined);
  }

  stop() {
    this.generation += 1;
    this.stopFollowing();
  }
}
