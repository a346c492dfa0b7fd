// The chart panel: which instrument, interval and zone are shown, loading a history (bars and the
// gap ledger) when one of them changes, then following it live (the stream when the API has one,
// else a short poll), the OHLC readout, the gap list and the messages. One load at a time: each
// load takes a generation number, and the answers of an older one are dropped.
import {
  applyTrade,
  bandsFromGaps,
  barsFromRows,
  clockIn,
  formatPrice,
  formatSlot,
  formatVolume,
  INTERVALS,
  slotOf,
  ZONES,
} from './chart-data.js';
import { openLiveStream } from './live-stream.js';
import { createPriceChart } from './price-chart.js';

const $ = (id) => document.getElementById(id);
/** Without a live stream, the latest bars are asked for this often. */
const POLL_MS = 2000;
/** With a live stream, the latest bars are re-read this often to set volumes right (see applyTrade). */
const RECONCILE_MS = 30_000;

const nameOf = (m) =>
  m.symbol ? `${m.symbol} (${m.segment ?? 'id'} ${m.securityId})` : `security id ${m.securityId}`;
const iso = (sec) => new Date(sec * 1000).toISOString();

export function createChartPanel({ api, liveStream, gapLedger: hasGapLedger, interval: initialInterval }) {
  const container = $('chart');
  const chart = createPriceChart(container, { onHover: (hover) => showReadout(hover) });
  const state = {
    instrument: undefined,
    interval: initialInterval,
    zone: ZONES.IST,
    generation: 0,
    bands: [],
    hovering: false,
  };
  let gapLedger = hasGapLedger ? 'unknown' : 'absent';
  let following;

  function setMessage(text, kind = 'info') {
    const box = $('chart-message');
    box.textContent = text;
    box.dataset.kind = kind;
    box.hidden = text === '';
  }

  function showReadout(hover) {
    state.hovering = hover !== undefined;
    const readout = $('readout');
    const step = INTERVALS[state.interval].step;
    const bar = hover ? hover.bar : chart.lastBar();
    const label = hover
      ? hover.label
      : bar
        ? `last: ${formatSlot(bar.time + state.zone.offsetSec, step, state.zone)}`
        : '';
    readout.dataset.time = bar ? String(bar.time) : '';
    $('readout-time').textContent = label;
    for (const field of ['open', 'high', 'low', 'close'])
      $(`readout-${field}`).textContent = formatPrice(bar?.[field]);
    $('readout-volume').textContent = formatVolume(bar?.volume);
    readout.dataset.empty = bar ? 'false' : 'true';
  }

  async function loadGaps(securityId, fromSec, toSec) {
    if (gapLedger === 'absent') return [];
    try {
      const body = await api.json(
        `/v1/data-quality/gaps?from=${encodeURIComponent(iso(fromSec))}&to=${encodeURIComponent(iso(toSec))}&securityId=${securityId}`,
      );
      gapLedger = 'present';
      return bandsFromGaps(body, securityId);
    } catch (error) {
      if (error.auth) throw error;
      // An API without the gap ledger: charts work without bands, and it is not asked again.
      if (error.status === 404 && gapLedger !== 'present') gapLedger = 'absent';
      return [];
    }
  }

  function renderGaps(bands) {
    const list = $('gap-list');
    list.replaceChildren(
      ...bands.map((b) =>
        Object.assign(document.createElement('li'), {
          textContent: `${clockIn(b.fromSec * 1000, state.zone)} – ${clockIn(b.toSec * 1000, state.zone)}: ${b.cause}${b.connection !== null ? `, connection ${b.connection}` : ''}`,
        }),
      ),
    );
    $('gaps').hidden = bands.length === 0;
  }

  function describe(bars) {
    const { instrument, interval } = state;
    const last = bars.at(-1);
    $('chart-title').textContent = `${nameOf(instrument)} · ${INTERVALS[interval].label} candles`;
    container.setAttribute(
      'aria-label',
      `Candlestick chart of ${nameOf(instrument)}, ${INTERVALS[interval].label} candles: ${bars.length} with trades${last ? `, last close ${formatPrice(last.close)}` : ''}`,
    );
  }

  async function load() {
    const mine = ++state.generation;
    stopFollowing();
    const { instrument, interval, zone } = state;
    const { step, windowSec } = INTERVALS[interval];
    const toSec = Date.now() / 1000;
    const fromSec = toSec - windowSec;
    container.dataset.state = 'loading';
    setMessage(`Loading ${nameOf(instrument)}…`);
    try {
      const [barsBody, bands] = await Promise.all([
        api.json(
          `/v1/instruments/${instrument.securityId}/bars?interval=${interval}&from=${encodeURIComponent(iso(fromSec))}`,
        ),
        loadGaps(instrument.securityId, fromSec, toSec),
      ]);
      if (mine !== state.generation) return;
      const bars = barsFromRows(barsBody);
      state.bands = bands;
      chart.show(bars, { step, zone, toSec, gapBands: bands });
      renderGaps(bands);
      describe(bars);
      showReadout(undefined);
      container.dataset.state = 'shown';
      setMessage(
        bars.length > 0
          ? ''
          : `No trades of ${nameOf(instrument)} in the last ${windowText(windowSec)}; new ones appear here as they arrive.`,
      );
      follow(mine);
    } catch (error) {
      if (error.auth || mine !== state.generation) return;
      container.dataset.state = 'error';
      setMessage(`Could not load ${nameOf(instrument)}: ${error.message}`, 'error');
    }
  }

  function follow(mine) {
    const { instrument, interval } = state;
    const step = INTERVALS[interval].step;
    let cumulative;
    const apply = (bar) => {
      if (mine !== state.generation) return;
      if (!chart.updateBar(bar)) return void load();
      if (!state.hovering) showReadout(undefined);
    };
    // `settledOnly`: with the live stream, only bars closed a whole interval ago are re-read; by then
    // the store has every trade of them, while the newer ones may still be on their way to it.
    const refresh = async (settledOnly) => {
      const last = chart.lastBar();
      // From the latest bar shown, or two intervals back when that is older (a quiet instrument) or
      // ahead of this browser's clock (the API refuses a range starting in the future).
      const now = slotOf(Date.now() / 1000, step);
      const fromSec = Math.min(Math.max(last ? last.time : 0, now - 2 * step), now);
      const settled = now - step;
      try {
        const body = await api.json(
          `/v1/instruments/${instrument.securityId}/bars?interval=${interval}&from=${encodeURIComponent(iso(fromSec))}`,
        );
        for (const bar of barsFromRows(body)) if (!settledOnly || bar.time < settled) apply(bar);
      } catch {
        // The next refresh tries again; a refused key has already signed the page out.
      }
    };
    const timers = [];
    const live = $('live-state');
    let stream;
    if (liveStream) {
      live.textContent = 'connecting to the live stream…';
      stream = openLiveStream(api, instrument.securityId, {
        onTrade: (record) => {
          const result = applyTrade(chart.bar(slotOf(record.ltt, step)), record, step, cumulative);
          cumulative = result.cumulative;
          apply(result.bar);
        },
        onState: (s) => {
          if (mine !== state.generation) return;
          if (s === 'live') live.textContent = 'live';
          else if (s === 'retrying') live.textContent = 'live stream interrupted, reconnecting…';
          else if (s === 'lost') void refresh(true);
          else if (s === 'down') {
            live.textContent = `live stream unavailable: refreshing every ${POLL_MS / 1000} s`;
            timers.push(setInterval(() => refresh(false), POLL_MS));
          }
        },
      });
      timers.push(setInterval(() => refresh(true), RECONCILE_MS));
    } else {
      live.textContent = `refreshing every ${POLL_MS / 1000} s (this API has no live stream)`;
      timers.push(setInterval(() => refresh(false), POLL_MS));
    }
    following = { stream, timers };
  }

  function stopFollowing() {
    following?.stream?.close();
    for (const timer of following?.timers ?? []) clearInterval(timer);
    following = undefined;
  }

  function remember() {
    const params = new URLSearchParams(location.search);
    if (state.instrument)
      params.set('instrument', state.instrument.symbol ?? String(state.instrument.securityId));
    else params.delete('instrument');
    params.set('interval', state.interval);
    history.replaceState(null, '', `${location.pathname}?${params}${location.hash}`);
  }

  return {
    /** Shows an instrument (a match of the search) unless it is the one shown. */
    show(match) {
      if (state.instrument?.securityId === match.securityId && container.dataset.state !== 'unknown') return;
      state.instrument = match;
      remember();
      void load();
    },
    /** Nothing matches what was typed: say so, and leave no other instrument's candles on screen. */
    unknown(query) {
      state.generation += 1;
      stopFollowing();
      state.instrument = undefined;
      remember();
      chart.clear();
      state.bands = [];
      renderGaps([]);
      showReadout(undefined);
      $('chart-title').textContent = 'No instrument';
      container.setAttribute('aria-label', 'Empty chart: no instrument selected');
      container.dataset.state = 'unknown';
      $('live-state').textContent = '';
      setMessage(
        `No instrument matches “${query}”. Type a symbol or a security id; the suggestions list the instruments the pipeline knows.`,
        'warning',
      );
    },
    hint(text) {
      setMessage(text);
    },
    setInterval(interval) {
      state.interval = interval;
      remember();
      if (state.instrument) void load();
    },
    /** Another display zone: the shown history is drawn again with shifted times, nothing is fetched. */
    setZone(zone) {
      state.zone = zone;
      if (!state.instrument || container.dataset.state !== 'shown') return;
      const { step } = INTERVALS[state.interval];
      chart.show(chart.bars(), { step, zone, toSec: Date.now() / 1000, gapBands: state.bands });
      renderGaps(state.bands);
      showReadout(undefined);
    },
    stop() {
      state.generation += 1;
      stopFollowing();
    },
  };
}

function windowText(windowSec) {
  if (windowSec < 3600) return `${windowSec / 60} minutes`;
  if (windowSec < 86_400) return `${windowSec / 3600} hours`;
  return `${windowSec / 86_400} days`;
}
