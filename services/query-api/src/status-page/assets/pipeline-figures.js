// The pipeline's live figures (/v1/pipeline): rates, connections, lag, rows stored, loader progress,
// recent feed errors. Rendering only; the page decides when to poll.
import { clockIn } from './chart-data.js';

const FEED_ERRORS = {
  805: 'connection limit exceeded',
  806: 'payment not done for broadcast',
  807: 'token expired',
  808: 'authentication failure',
  809: 'invalid token',
};

const $ = (id) => document.getElementById(id);
const fmt = (n) => (n === undefined || n === null ? '–' : Number(n).toLocaleString('en-US'));

function connectionRow(c) {
  const tr = document.createElement('tr');
  for (const [value, cls] of [
    [c.index],
    [c.state, `state-${c.state}`],
    [fmt(c.trade)],
    [fmt(c.ohlc)],
    [c.reconnects],
    [c.reason],
  ]) {
    const td = document.createElement('td');
    td.textContent = String(value ?? '');
    if (cls) td.className = cls;
    tr.append(td);
  }
  return tr;
}

function renderFeedErrors(errors, zone) {
  $('feed-errors').replaceChildren(
    ...(errors.length === 0
      ? [Object.assign(document.createElement('li'), { className: 'muted', textContent: 'none' })]
      : errors
          .slice(-20)
          .reverse()
          .map((e) =>
            Object.assign(document.createElement('li'), {
              textContent: `${clockIn(e.at, zone)}  connection ${e.connection}: ${e.code} ${FEED_ERRORS[e.code] ?? 'upgrade refused'}`,
            }),
          )),
  );
}

function renderLoader(loader) {
  if (!loader) {
    $('loader').textContent = 'idle';
    return;
  }
  const pct = loader.total > 0 ? Math.round((100 * loader.done) / loader.total) : 0;
  $('loader').textContent = `${pct}%`;
  $('loader-detail').textContent =
    `${fmt(loader.done)} of ${fmt(loader.total)} units, ${loader.rate?.toFixed?.(2) ?? '–'} req/s, ` +
    `budget left today ${fmt(loader.budgetLeft)}${loader.etaSeconds ? `, ETA ${Math.round(loader.etaSeconds)} s` : ''}` +
    (loader.nextRunAt
      ? `, next run ${new Date(loader.nextRunAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : '');
}

/** A renderer that remembers the previous packet count, for a rate when the API sends none. */
export function createPipelineFigures() {
  let lastTicks;
  return function render(p, zone) {
    const now = Date.now();
    const ticks = p.feed?.packets ?? 0;
    if (p.feed?.ticksPerSecond !== undefined)
      $('ticks-per-second').textContent = fmt(Math.round(p.feed.ticksPerSecond));
    else if (lastTicks)
      $('ticks-per-second').textContent = fmt(
        Math.round(((ticks - lastTicks.n) * 1000) / (now - lastTicks.at)),
      );
    lastTicks = { n: ticks, at: now };
    const connections = p.feed?.connections ?? [];
    $('connections-open').textContent =
      `${connections.filter((c) => c.state === 'open').length} / ${connections.length}`;
    const trade = connections.reduce((s, c) => s + c.trade, 0);
    const ohlc = connections.reduce((s, c) => s + c.ohlc, 0);
    $('subscriptions').textContent = `${fmt(trade)} + ${fmt(ohlc)}`;
    $('kafka-lag').textContent = fmt(p.kafka?.lag);
    $('rows-stored').textContent = fmt(p.store?.ticks);
    $('connections')
      .querySelector('tbody')
      .replaceChildren(...connections.map(connectionRow));
    renderFeedErrors(p.feed?.recentFeedErrors ?? [], zone);
    renderLoader(p.loader);
    $('updated').textContent = `updated ${clockIn(now, zone)}`;
  };
}
