// The price chart: lightweight-charts with candles on a time scale of one slot per interval, a
// volume pane below, gap bands behind the candles and a crosshair whose bar is reported to the
// page's readout. History goes in once per instrument, interval or zone (setData); live trades
// change single bars (update), so the history is never redrawn from scratch while following.
// The container's data-* attributes say what is drawn, for people debugging and for the tests.
import {
  chartSeries,
  formatPrice,
  formatSlot,
  MAX_SLOTS,
  slotOf,
  tickLabel,
  volumePoint,
} from './chart-data.js';
import { GapBands } from './gap-bands.js';
import {
  CandlestickSeries,
  CrosshairMode,
  createChart,
  HistogramSeries,
} from './vendor/lightweight-charts.mjs';

export const COLOURS = {
  up: '#26a69a',
  down: '#ef5350',
  upVolume: 'rgba(38, 166, 154, 0.6)',
  downVolume: 'rgba(239, 83, 80, 0.6)',
  text: '#c5ced6',
  grid: '#222b35',
};

/** Narrowest candle spacing shown at first: thinner candles are hard to hover and tell apart. */
const READABLE_SPACING_PX = 5;

/** The library's chart with a candle series, a volume pane and the gap bands. */
function buildChart(container) {
  const chart = createChart(container, {
    autoSize: true,
    layout: {
      background: { color: '#171e26' },
      textColor: COLOURS.text,
      fontSize: 12,
      panes: { separatorColor: '#2c3845', enableResize: true },
    },
    grid: { vertLines: { color: COLOURS.grid }, horzLines: { color: COLOURS.grid } },
    crosshair: { mode: CrosshairMode.Normal },
    rightPriceScale: { borderColor: '#2c3845' },
    timeScale: { borderColor: '#2c3845', timeVisible: true, secondsVisible: false, rightOffset: 3 },
    localization: { locale: 'en-US', priceFormatter: formatPrice },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: COLOURS.up,
    downColor: COLOURS.down,
    borderVisible: false,
    wickUpColor: COLOURS.up,
    wickDownColor: COLOURS.down,
    priceFormat: { type: 'price', precision: 2, minMove: 0.01 },
  });
  const volume = chart.addSeries(
    HistogramSeries,
    { priceFormat: { type: 'volume' }, priceLineVisible: false, lastValueVisible: false },
    1,
  );
  chart.panes()[0]?.setStretchFactor(3);
  chart.panes()[1]?.setStretchFactor(1);
  const bands = new GapBands();
  candles.attachPrimitive(bands);
  return { chart, candles, volume, bands };
}

export class PriceChart {
  constructor(container, { onHover }) {
    this.container = container;
    Object.assign(this, buildChart(container));
    this.view = { step: 60, zone: undefined, bars: new Map(), firstSlot: undefined, lastSlot: undefined };
    this.redraws = 0;
    this.liveUpdates = 0;
    this.chart.subscribeCrosshairMove((param) => {
      const { zone, step, bars } = this.view;
      if (!param.point || param.time === undefined || !zone) return onHover(undefined);
      const utcSec = Number(param.time) - zone.offsetSec;
      onHover({ time: utcSec, label: formatSlot(Number(param.time), step, zone), bar: bars.get(utcSec) });
    });
  }

  /** What is drawn, on the container's data-* attributes: for people debugging and for the tests. */
  publish() {
    const data = this.container.dataset;
    data.candles = String(this.view.bars.size);
    data.volumeBars = String(this.view.bars.size);
    data.panes = String(this.chart.panes().length);
    data.redraws = String(this.redraws);
    data.liveUpdates = String(this.liveUpdates);
  }

  /** Every slot when they fit at a readable width, else the latest ones (pan or zoom out for more). */
  showRecent(slots) {
    const timeScale = this.chart.timeScale();
    const fitting = Math.floor(timeScale.width() / READABLE_SPACING_PX);
    if (slots === 0) return;
    if (fitting <= 0 || slots <= fitting) timeScale.fitContent();
    else timeScale.setVisibleLogicalRange({ from: slots - fitting, to: slots - 1 + 2 });
  }

  /** An empty chart shows no price scales: the last instrument's prices would still be on them. */
  showScales(visible) {
    this.candles.priceScale().applyOptions({ visible });
    this.volume.priceScale().applyOptions({ visible });
  }

  /** Draws a whole history: the bars, a slot for every interval up to `toSec`, and the gap bands. */
  show(bars, { step, zone, toSec, gapBands = [] }) {
    this.chart.applyOptions({
      timeScale: { secondsVisible: step < 60, tickMarkFormatter: tickLabel },
      localization: { timeFormatter: (time) => formatSlot(Number(time), step, zone) },
    });
    this.showScales(true);
    const bandsFromSec = gapBands.length > 0 ? gapBands[0].fromSec : Number.POSITIVE_INFINITY;
    const series = chartSeries(bars, { step, toSec, offsetSec: zone.offsetSec, bandsFromSec }, COLOURS);
    this.candles.setData(series.candles);
    this.volume.setData(series.volumes);
    this.view = {
      step,
      zone,
      bars: new Map(bars.map((b) => [b.time, b])),
      firstSlot: series.candles[0]?.time - zone.offsetSec,
      lastSlot: series.candles.at(-1)?.time - zone.offsetSec,
    };
    this.redraws += 1;
    this.setBands(gapBands);
    this.showRecent(series.candles.length);
    this.publish();
  }

  clear() {
    this.view = { ...this.view, bars: new Map(), firstSlot: undefined, lastSlot: undefined };
    this.candles.setData([]);
    this.volume.setData([]);
    this.showScales(false);
    this.setBands([]);
    this.redraws += 1;
    this.publish();
  }

  /** Bands clipped to the slots on the time scale, snapped to their slots. */
  setBands(gapBands) {
    const { step, zone, firstSlot, lastSlot } = this.view;
    const drawn = [];
    if (zone && firstSlot !== undefined && lastSlot !== undefined) {
      for (const band of gapBands) {
        const from = Math.max(slotOf(band.fromSec, step), firstSlot);
        const to = Math.min(slotOf(band.toSec, step), lastSlot);
        if (from <= to) drawn.push({ from: from + zone.offsetSec, to: to + zone.offsetSec });
      }
    }
    this.bands.setBands(drawn);
    this.container.dataset.bands = String(drawn.length);
  }

  /**
   * One bar from a live trade or a refresh: later slots get whitespace up to it, nothing is
   * redrawn. False when the bar is beyond what one update should fill (the caller reloads).
   */
  updateBar(bar) {
    const { step, zone, firstSlot, lastSlot } = this.view;
    if (!zone || lastSlot === undefined) return false;
    if (bar.time < firstSlot) return true;
    if ((bar.time - lastSlot) / step > MAX_SLOTS) return false;
    for (let t = lastSlot + step; t < bar.time; t += step) {
      this.candles.update({ time: t + zone.offsetSec });
      this.volume.update({ time: t + zone.offsetSec });
    }
    const time = bar.time + zone.offsetSec;
    const historical = bar.time < lastSlot;
    this.candles.update({ time, open: bar.open, high: bar.high, low: bar.low, close: bar.close }, historical);
    this.volume.update(volumePoint(bar, time, COLOURS), historical);
    this.view.lastSlot = Math.max(lastSlot, bar.time);
    this.view.bars.set(bar.time, bar);
    this.liveUpdates += 1;
    this.publish();
    return true;
  }

  bar(time) {
    return this.view.bars.get(time);
  }

  /** The bars shown, in time order (history and live updates). */
  bars() {
    return [...this.view.bars.values()].sort((a, b) => a.time - b.time);
  }

  lastBar() {
    let last;
    for (const bar of this.view.bars.values()) if (!last || bar.time > last.time) last = bar;
    return last;
  }
}
