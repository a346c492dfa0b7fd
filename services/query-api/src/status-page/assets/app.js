// The status page's script: polls the pipeline figures and draws a live candlestick chart of one
// instrument from the bars endpoint. Plain browser JavaScript, no build step. The API key comes from
// the sign-in form only, is kept in sessionStorage (this tab) and sent as x-api-key. A key is never
// read from the URL: a URL lands in browser history, proxy and server logs, and screen shares.
(() => {
  const FEED_ERRORS = {
    805: 'connection limit exceeded',
    806: 'payment not done for broadcast',
    807: 'token expired',
    808: 'authentication failure',
    809: 'invalid token',
  };
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.has('key')) {
    // An old-style link: drop the key from the address bar and history at once, and do not use it.
    params.delete('key');
    const query = params.toString();
    history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
  }
  let apiKey = sessionStorage.getItem('feedpipe-key') || '';
  let selected = params.get('instrument') || '';
  let lastTicks;

  async function api(path) {
    const used = apiKey;
    const response = await fetch(path, { headers: { 'x-api-key': used, accept: 'application/json' } });
    if (response.status === 401 || response.status === 403) {
      // Only the key still in use is forgotten: a late answer to an older key must not sign out a newer one.
      if (used === apiKey) showKeyForm();
      throw Object.assign(new Error('key refused'), { auth: true });
    }
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }

  const rowsOf = (body) => (Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : []);
  const fmt = (n) => (n === undefined || n === null ? '–' : Number(n).toLocaleString('en-US'));

  function showKeyForm() {
    // A refused key is forgotten, and nothing polls with it any more.
    timers.forEach(clearInterval);
    timers = [];
    apiKey = '';
    sessionStorage.removeItem('feedpipe-key');
    $('main').hidden = true;
    $('key-form').hidden = false;
  }

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    apiKey = $('key-input').value.trim();
    sessionStorage.setItem('feedpipe-key', apiKey);
    start();
  });

  function renderPipeline(p) {
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
    const tbody = $('connections').querySelector('tbody');
    tbody.replaceChildren(
      ...connections.map((c) => {
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
      }),
    );
    const errors = p.feed?.recentFeedErrors ?? [];
    $('feed-errors').replaceChildren(
      ...(errors.length === 0
        ? [Object.assign(document.createElement('li'), { className: 'muted', textContent: 'none' })]
        : errors
            .slice(-20)
            .reverse()
            .map((e) =>
              Object.assign(document.createElement('li'), {
                textContent: `${new Date(e.at).toLocaleTimeString()}  connection ${e.connection}: ${e.code} ${FEED_ERRORS[e.code] ?? 'upgrade refused'}`,
              }),
            )),
    );
    const loader = p.loader;
    if (loader) {
      const pct = loader.total > 0 ? Math.round((100 * loader.done) / loader.total) : 0;
      $('loader').textContent = `${pct}%`;
      $('loader-detail').textContent =
        `${fmt(loader.done)} of ${fmt(loader.total)} units, ${loader.rate?.toFixed?.(2) ?? '–'} req/s, ` +
        `budget left today ${fmt(loader.budgetLeft)}${loader.etaSeconds ? `, ETA ${Math.round(loader.etaSeconds)} s` : ''}`;
    } else {
      $('loader').textContent = 'idle';
    }
    $('updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
  }

  async function refreshPipeline() {
    try {
      renderPipeline(await api('/v1/pipeline'));
    } catch (error) {
      if (error.auth) return;
      $('updated').textContent = `status unavailable (${error.message})`;
    }
  }

  async function refreshInstruments() {
    try {
      const rows = rowsOf(await api('/v1/instruments?limit=1000'));
      $('instrument-list').replaceChildren(
        ...rows.map((r) =>
          Object.assign(document.createElement('option'), { value: String(r.security_id ?? r.securityId) }),
        ),
      );
      if (!selected && rows.length > 0) {
        selected = String(rows[0].security_id ?? rows[0].securityId);
        $('search').value = selected;
        refreshChart();
      }
    } catch {
      // The next refresh tries again.
    }
  }

  function drawCandles(bars) {
    const canvas = $('chart');
    const ctx = canvas.getContext('2d');
    const w = canvas.width;
    const h = canvas.height;
    const pad = { left: 10, right: 70, top: 10, bottom: 24 };
    ctx.fillStyle = '#171e26';
    ctx.fillRect(0, 0, w, h);
    canvas.dataset.candles = String(bars.length);
    if (bars.length === 0) {
      ctx.fillStyle = '#7a8794';
      ctx.fillText('no bars yet for this instrument', w / 2 - 80, h / 2);
      return;
    }
    const lows = bars.map((b) => b.low);
    const highs = bars.map((b) => b.high);
    const min = Math.min(...lows);
    const max = Math.max(...highs);
    const span = max - min || 1;
    const y = (v) => pad.top + ((max - v) / span) * (h - pad.top - pad.bottom);
    const slot = (w - pad.left - pad.right) / Math.max(bars.length, 30);
    ctx.strokeStyle = '#222b35';
    ctx.fillStyle = '#7a8794';
    ctx.font = '11px system-ui';
    for (let i = 0; i <= 4; i++) {
      const v = min + (span * i) / 4;
      ctx.beginPath();
      ctx.moveTo(pad.left, y(v));
      ctx.lineTo(w - pad.right, y(v));
      ctx.stroke();
      ctx.fillText(v.toFixed(2), w - pad.right + 6, y(v) + 4);
    }
    bars.forEach((b, i) => {
      const x = pad.left + i * slot + slot / 2;
      const up = b.close >= b.open;
      ctx.strokeStyle = ctx.fillStyle = up ? '#26a69a' : '#ef5350';
      ctx.beginPath();
      ctx.moveTo(x, y(b.high));
      ctx.lineTo(x, y(b.low));
      ctx.stroke();
      const top = y(Math.max(b.open, b.close));
      const bodyHeight = Math.max(1, Math.abs(y(b.open) - y(b.close)));
      ctx.fillRect(x - Math.max(1, slot * 0.35), top, Math.max(2, slot * 0.7), bodyHeight);
      if (i % Math.ceil(bars.length / 6) === 0) {
        ctx.fillStyle = '#7a8794';
        ctx.fillText(
          new Date(b.time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
          x - 14,
          h - 6,
        );
      }
    });
  }

  async function refreshChart() {
    if (!selected) return;
    try {
      const from = new Date(Date.now() - 60 * 60 * 1000).toISOString();
      const rows = rowsOf(
        await api(
          `/v1/instruments/${encodeURIComponent(selected)}/bars?interval=1m&from=${encodeURIComponent(from)}`,
        ),
      );
      const bars = rows.map((r) => ({
        // The API writes instants as ISO 8601 with Z (docs/notebook.md, "Times").
        time: typeof r.time === 'number' ? r.time * 1000 : Date.parse(String(r.time)),
        open: Number(r.open),
        high: Number(r.high),
        low: Number(r.low),
        close: Number(r.close),
      }));
      $('chart-title').textContent =
        `${selected}: ${bars.length} one-minute bars, last ${bars.at(-1)?.close ?? '–'}`;
      drawCandles(bars);
    } catch (error) {
      if (error.auth) return;
      $('chart-title').textContent = `bars unavailable (${error.message})`;
    }
  }

  $('search').addEventListener('change', () => {
    selected = $('search').value.trim();
    refreshChart();
  });

  let timers = [];
  function start() {
    timers.forEach(clearInterval);
    $('key-form').hidden = true;
    $('main').hidden = false;
    if (apiKey) sessionStorage.setItem('feedpipe-key', apiKey);
    refreshPipeline();
    refreshInstruments();
    refreshChart();
    timers = [
      setInterval(refreshPipeline, 1000),
      setInterval(refreshChart, 2000),
      setInterval(refreshInstruments, 15000),
    ];
  }

  if (apiKey) start();
  else showKeyForm();
})();
