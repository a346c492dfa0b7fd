// Pure data shaping for the status page's chart: API rows to bars, bars to the chart's series with
// one slot per interval (so time gaps stay gaps), live trades folded into bars, gap-ledger rows to
// bands, and times shown in a named zone. No DOM here, so it is unit-tested in Node as well.

/**
 * The intervals the page offers, each with how far back it looks: the window keeps a chart to at
 * most ~900 slots, enough to read and far under the API's bar limit.
 */
export const INTERVALS = {
  '1s': { step: 1, windowSec: 15 * 60, label: '1 second' },
  '1m': { step: 60, windowSec: 6 * 3600, label: '1 minute' },
  '5m': { step: 300, windowSec: 2 * 86_400, label: '5 minutes' },
  '1h': { step: 3600, windowSec: 30 * 86_400, label: '1 hour' },
  '1d': { step: 86_400, windowSec: 365 * 86_400, label: '1 day' },
};

/**
 * Display zones. The chart library has no time zones (it reads every time as UTC), so times are
 * shifted by the zone's offset before they reach it: its day and hour tick marks then fall on the
 * zone's own boundaries. IST has no daylight saving, so one fixed offset is exact.
 */
export const ZONES = {
  IST: { offsetSec: 19_800, name: 'IST', label: 'IST, exchange time (UTC+05:30)' },
  UTC: { offsetSec: 0, name: 'UTC', label: 'UTC' },
};

/** Most slots one chart holds: a bound on the whitespace a long gap could ask for. */
export const MAX_SLOTS = 5000;

/**
 * Epoch seconds from what the API sends: epoch seconds or milliseconds, or an ISO or ClickHouse
 * ('2024-03-04 09:00:00.000', UTC) date-time. NaN when it is none of those.
 */
export function epochSeconds(value) {
  if (typeof value === 'number') return value > 1e11 ? value / 1000 : value;
  if (typeof value !== 'string' || value === '') return Number.NaN;
  if (/^\d+(\.\d+)?$/.test(value)) return epochSeconds(Number(value));
  const iso = value.includes('T') ? value : value.replace(' ', 'T');
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`;
  return Date.parse(zoned) / 1000;
}

/** Rows of the bars endpoint ({ data: [...] } or a bare array) to bars in time order, bad rows left out. */
export function barsFromRows(body) {
  const rows = Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : [];
  const bars = [];
  for (const row of rows) {
    const bar = {
      time: Math.floor(epochSeconds(row.time)),
      open: Number(row.open),
      high: Number(row.high),
      low: Number(row.low),
      close: Number(row.close),
      volume: Number(row.volume ?? 0),
    };
    if (Object.values(bar).every(Number.isFinite)) bars.push(bar);
  }
  return bars.sort((a, b) => a.time - b.time);
}

export const slotOf = (epochSec, step) => Math.floor(epochSec / step) * step;

/**
 * The chart's two series: a candle or whitespace point for every slot from the first bar (or band)
 * to `toSec`, shifted into the zone, and the volume of each bar coloured by its direction. At most
 * MAX_SLOTS slots: when the span is longer the oldest slots are left out.
 */
export function chartSeries(
  bars,
  { step, toSec, offsetSec, bandsFromSec = Number.POSITIVE_INFINITY },
  colours,
) {
  const last = slotOf(Math.max(toSec, bars.at(-1)?.time ?? toSec), step);
  const first = Math.max(
    slotOf(Math.min(bars[0]?.time ?? last, bandsFromSec), step),
    last - (MAX_SLOTS - 1) * step,
  );
  const byTime = new Map(bars.map((b) => [b.time, b]));
  const candles = [];
  const volumes = [];
  for (let t = first; t <= last; t += step) {
    const bar = byTime.get(t);
    const time = t + offsetSec;
    if (!bar) {
      candles.push({ time });
      volumes.push({ time });
      continue;
    }
    candles.push({ time, open: bar.open, high: bar.high, low: bar.low, close: bar.close });
    volumes.push(volumePoint(bar, time, colours));
  }
  return { candles, volumes };
}

export function volumePoint(bar, time, colours) {
  return { time, value: bar.volume, color: bar.close >= bar.open ? colours.upVolume : colours.downVolume };
}

/**
 * Folds one live trade into the bar of its slot. The feed's volume is cumulative for the day, so a
 * trade's quantity is the rise since the previous trade seen; the first trade after (re)connecting
 * has no previous one and adds none (the periodic refresh from the API puts the volume right).
 */
export function applyTrade(bar, trade, step, previousCumulative) {
  const time = slotOf(trade.ltt, step);
  const price = Number(trade.ltp);
  const cumulative = Number(trade.volume);
  const sameDay =
    previousCumulative !== undefined && previousCumulative.day === Math.floor(trade.ltt / 86_400);
  const quantity = sameDay ? Math.max(0, cumulative - previousCumulative.volume) : 0;
  const next =
    bar && bar.time === time
      ? {
          time,
          open: bar.open,
          high: Math.max(bar.high, price),
          low: Math.min(bar.low, price),
          close: price,
          volume: bar.volume + quantity,
        }
      : { time, open: price, high: price, low: price, close: price, volume: quantity };
  return { bar: next, cumulative: { day: Math.floor(trade.ltt / 86_400), volume: cumulative } };
}

/**
 * Gap-ledger rows of one instrument to bands in epoch seconds (rows of other instruments, or with
 * unreadable times, are left out).
 */
export function bandsFromGaps(body, securityId) {
  const rows = Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : [];
  const bands = [];
  for (const row of rows) {
    if (row.securityId !== undefined && Number(row.securityId) !== securityId) continue;
    const fromSec = epochSeconds(row.start);
    const toSec = row.end === null || row.end === undefined ? Date.now() / 1000 : epochSeconds(row.end);
    if (!Number.isFinite(fromSec) || !Number.isFinite(toSec) || toSec < fromSec) continue;
    bands.push({ fromSec, toSec, cause: String(row.cause ?? 'unknown'), connection: row.connection ?? null });
  }
  return bands.sort((a, b) => a.fromSec - b.fromSec);
}

const pad = (n) => String(n).padStart(2, '0');

/** A time already shifted into a zone (chart time), as that zone's wall clock. */
export function wallClock(chartSec, withSeconds) {
  const d = new Date(chartSec * 1000);
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return withSeconds ? `${hm}:${pad(d.getUTCSeconds())}` : hm;
}

export function wallDate(chartSec) {
  const d = new Date(chartSec * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Crosshair and readout label: date, and the time as fine as the interval, with the zone's name. */
export function formatSlot(chartSec, step, zone) {
  if (step >= 86_400) return `${wallDate(chartSec)} (${zone.name} day)`;
  return `${wallDate(chartSec)} ${wallClock(chartSec, step < 60)} ${zone.name}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Time-axis labels by the library's tick mark type: 0 year, 1 month, 2 day, 3 time, 4 time with seconds. */
export function tickLabel(chartSec, type) {
  const d = new Date(chartSec * 1000);
  if (type === 0) return String(d.getUTCFullYear());
  if (type === 1) return MONTHS[d.getUTCMonth()];
  if (type === 2) return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  return wallClock(chartSec, type === 4);
}

/** An epoch-millisecond instant as a zone's clock time with its name, for lists on the page. */
export function clockIn(epochMs, zone) {
  return `${wallClock(epochMs / 1000 + zone.offsetSec, true)} ${zone.name}`;
}

export function formatPrice(value) {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}

export function formatVolume(value) {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}
