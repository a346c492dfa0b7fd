/** Metrics of the fill recorder and the end-of-day snapshots, on the gateway's registry. */
import { Counter, type Registry } from 'prom-client';

export interface FillMetrics {
  /** Fills stored (new rows only), by what made the gateway read them. */
  readonly stored: Counter<'source'>;
  /** Reads of the trade book that ended with their fills stored, by trigger. */
  readonly syncs: Counter<'source'>;
  /** Reads of the trade book (or their inserts) that failed; the next read catches up. */
  readonly syncErrors: Counter;
  /** End-of-day snapshots by kind and outcome. */
  readonly snapshots: Counter<'kind' | 'outcome'>;
}

/** On the gateway's registry, under its prefix (metrics.ts). */
export function createFillMetrics(registry: Registry, p: string): FillMetrics {
  return {
    stored: new Counter({
      name: `${p}fills_stored_total`,
      help: 'Fills stored in market.fills, by source (postback, reconcile, history)',
      labelNames: ['source'],
      registers: [registry],
    }),
    syncs: new Counter({
      name: `${p}fill_syncs_total`,
      help: 'Reads of the trade book whose fills were stored, by source',
      labelNames: ['source'],
      registers: [registry],
    }),
    syncErrors: new Counter({
      name: `${p}fill_sync_errors_total`,
      help: 'Reads of the trade book, or inserts of their fills, that failed',
      registers: [registry],
    }),
    snapshots: new Counter({
      name: `${p}account_snapshots_total`,
      help: 'End-of-day account snapshots by kind and outcome (stored, failed)',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
  };
}
