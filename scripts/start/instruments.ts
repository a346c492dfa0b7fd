/**
 * The instrument list for `npm start`: loaded into market.instruments before the HTTP services
 * start, so a fresh start answers joins of ticks and bars to symbols at once, then again every day
 * at 07:30 IST while the pipeline runs.
 */
import {
  InstrumentMasterLoader,
  type InstrumentMasterResult,
  pipelineInstrumentMaster,
} from '@feedpipe/history-loader';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { log } from './log.js';
import { onExit } from './stop-order.js';

export async function startInstrumentMaster(inputs: {
  baseUrl: string | undefined;
  store: Store;
  registry: Registry;
}): Promise<InstrumentMasterResult | undefined> {
  if (inputs.baseUrl === undefined) return undefined;
  const master = new InstrumentMasterLoader(pipelineInstrumentMaster(process.env, inputs.baseUrl), {
    store: inputs.store.internal,
    registry: inputs.registry,
  });
  onExit('instrument-master', () => master.stop());
  let first: InstrumentMasterResult | undefined;
  try {
    first = await master.load();
    log(
      `instrument list: ${first.listed} instruments (${first.added} new, ${first.changed} changed, ${first.removed} gone, ${first.rejectedRows} malformed rows left out)`,
    );
  } catch (error) {
    // The pipeline runs without it; the daily loop tries again.
    log(`instrument list not loaded: ${(error as Error).message}`);
  }
  // Loaded just now when that worked; else the loop tries again at once, then daily.
  void master.start({ loadNow: first === undefined }).catch(() => undefined);
  return first;
}
