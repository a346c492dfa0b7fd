import { Counter, Gauge, type Registry } from 'prom-client';

/** What an operator asks of the instrument list: did today's load work, what changed, what was refused. */
export interface InstrumentMasterMetrics {
  loads: Counter<'outcome'>;
  rows: Counter<'change'>;
  rejected: Counter<'reason'>;
  lastSuccess: Gauge;
}

const LOADS = 'history_loader_instrument_master_loads_total';
const ROWS = 'history_loader_instrument_rows_total';
const REJECTED = 'history_loader_instrument_rows_rejected_total';
const LAST_SUCCESS = 'history_loader_instrument_master_last_success_timestamp_seconds';

/**
 * The metrics on `registry`, created once per registry: the scheduled history loader and `npm
 * start` hand the same registry to every load of the day.
 */
export function instrumentMasterMetrics(registry: Registry): InstrumentMasterMetrics {
  const existing = registry.getSingleMetric(LOADS);
  if (existing) {
    return {
      loads: existing as Counter<'outcome'>,
      rows: registry.getSingleMetric(ROWS) as Counter<'change'>,
      rejected: registry.getSingleMetric(REJECTED) as Counter<'reason'>,
      lastSuccess: registry.getSingleMetric(LAST_SUCCESS) as Gauge,
    };
  }
  const registers = [registry];
  return {
    loads: new Counter({
      name: LOADS,
      help: 'Loads of the instrument list, by outcome (ok, unavailable = download failed, invalid = not the list or truncated, store_failed)',
      labelNames: ['outcome'],
      registers,
    }),
    rows: new Counter({
      name: ROWS,
      help: 'Instrument rows compared with the stored list, by change (added, changed, removed, unchanged)',
      labelNames: ['change'],
      registers,
    }),
    rejected: new Counter({
      name: REJECTED,
      help: 'Malformed rows of the instrument list left out of market.instruments, by reason',
      labelNames: ['reason'],
      registers,
    }),
    lastSuccess: new Gauge({
      name: LAST_SUCCESS,
      help: 'Unix time of the last instrument-list load that stored the list (0 before the first)',
      registers,
    }),
  };
}
