// The status page's entry: sign-in, the pipeline figures, and the chart panel with its instrument
// box, interval and zone controls. Browser ES modules, no build step. The API key comes from the
// sign-in form only, is kept in sessionStorage (this tab only, gone when it closes) and sent as
// x-api-key; a key in the URL is removed from the address bar at once and never used.
import { createApiClient } from './api-client.js';
import { INTERVALS, ZONES } from './chart-data.js';
import { ChartPanel } from './chart-panel.js';
import { createInstrumentSearch } from './instrument-search.js';
import { createPipelineFigures } from './pipeline-figures.js';

const KEY_ITEM = 'feedpipe-key';
const PIPELINE_POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

const params = new URLSearchParams(location.search);
if (params.has('key')) {
  params.delete('key');
  const query = params.toString();
  history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
}

let apiKey = sessionStorage.getItem(KEY_ITEM) || '';
let session;

const api = createApiClient({
  getKey: () => apiKey,
  onRefused: (key) => {
    // Only the key still in use signs the page out: a late answer to an older key must not.
    if (key === apiKey) signOut('The API refused this key (unknown, revoked, or without the read scope).');
  },
});

function signOut(reason) {
  session?.stop();
  session = undefined;
  apiKey = '';
  sessionStorage.removeItem(KEY_ITEM);
  $('main').hidden = true;
  $('sign-out').hidden = true;
  $('key-form').hidden = false;
  $('key-error').textContent = reason ?? '';
  $('key-input').focus();
}

/** Everything that runs while signed in, stopped as a whole on sign-out. */
async function startSession() {
  $('key-form').hidden = true;
  $('main').hidden = false;
  $('sign-out').hidden = false;
  const features = await api.json('/status/features');
  const interval = INTERVALS[params.get('interval')] ? params.get('interval') : '1m';
  const panel = new ChartPanel({
    api,
    liveStream: features.liveStream,
    gapLedger: features.gapLedger,
    interval,
  });
  const render = createPipelineFigures();
  let zone = ZONES.IST;
  let pipelineTimer;
  const refreshPipeline = async () => {
    try {
      render(await api.json('/v1/pipeline'), zone);
    } catch (error) {
      if (!error.auth) $('updated').textContent = `status unavailable (${error.message})`;
    }
  };
  if (features.pipeline) {
    void refreshPipeline();
    pipelineTimer = setInterval(refreshPipeline, PIPELINE_POLL_MS);
  } else {
    $('figures').hidden = true;
    $('pipeline-tables').hidden = true;
    $('updated').textContent = 'this API instance does not run the pipeline: stored data only';
  }
  document.querySelector(`input[name=interval][value="${interval}"]`).checked = true;
  session = {
    panel,
    setZone(next) {
      zone = next;
      panel.changeZone(next);
    },
    stop() {
      clearInterval(pipelineTimer);
      panel.stop();
    },
  };
  const search = createInstrumentSearch({
    input: $('search'),
    list: $('instrument-list'),
    api,
    onResult: (result) => {
      if (result.kind === 'match') panel.show(result.match);
      else if (result.kind === 'unknown') panel.unknown(result.query);
      else if (result.kind === 'partial')
        panel.hint(`${result.count} instruments begin with “${result.query}”: pick one or type it whole.`);
      else if (!result.error.auth) panel.hint(`Search unavailable: ${result.error.message}`);
    },
  });
  await search.set(params.get('instrument') || (await firstStored()) || '');
}

/** The first instrument with stored data, shown when the address names none. */
async function firstStored() {
  const body = await api.json('/v1/instruments?limit=1');
  const row = body.data?.[0];
  return row ? String(row.security_id) : undefined;
}

function sessionFailed(error) {
  // A refused key has signed the page out already.
  if (!error.auth) $('updated').textContent = `could not start: ${error.message}`;
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  apiKey = $('key-input').value.trim();
  $('key-input').value = '';
  sessionStorage.setItem(KEY_ITEM, apiKey);
  startSession().catch(sessionFailed);
});
$('sign-out').addEventListener('click', () => signOut());
for (const radio of document.querySelectorAll('input[name=interval]')) {
  radio.addEventListener('change', () => session?.panel.changeInterval(radio.value));
}
$('zone').addEventListener('change', () => session?.setZone(ZONES[$('zone').value]));

if (apiKey) startSession().catch(sessionFailed);
else signOut();
