/**
 * A short history load for `npm start`'s demo universe, at the service's full allowed rate. What it
 * loads is the universe file's plan (demo.json: services/history-loader/src/pipeline-load.ts).
 */
import type { Credentials } from '@feedpipe/credentials';
import {
  createHistoryLoader,
  type HistoryLoader,
  pipelineLoadOptions,
  pipelineLoadScheduled,
  ScheduledLoader,
  TradingCalendar,
} from '@feedpipe/history-loader';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { log } from './log.js';
import { onExit } from './stop-order.js';

export interface HistoryInputs {
  /** REST `{base_url}`; no load without one. */
  baseUrl: string | undefined;
  clientId: string;
  tokens: Credentials;
  store: Store;
  registry: Registry;
  repoRoot: string;
}

/** Starts the load in the background (its result is logged); undefined when there is nothing to load. */
export function startHistoryLoad(inputs: HistoryInputs): HistoryLoader | ScheduledLoader | undefined {
  const { baseUrl } = inputs;
  const loadOptions = baseUrl
    ? pipelineLoadOptions(process.env, { baseUrl, clientId: inputs.clientId }, inputs.repoRoot)
    : undefined;
  if (!loadOptions) return undefined;
  if (pipelineLoadScheduled(process.env)) {
    const scheduler = new ScheduledLoader(
      { loader: loadOptions, calendar: new TradingCalendar() },
      { clickhouse: inputs.store.internal, accessToken: inputs.tokens, registry: inputs.registry },
    );
    onExit('history-loader', () => scheduler.stop());
    void scheduler
      .start()
      .catch((error: unknown) => log(`history-loader failed: ${(error as Error).message}`));
    return scheduler;
  }
  const loader = createHistoryLoader(loadOptions, {
    clickhouse: inputs.store.internal,
    accessToken: inputs.tokens,
    registry: inputs.registry,
  });
  onExit('history-loader', () => loader.stop());
  void loader.run().then(
    (result) => log(`history-loader: ${JSON.stringify(result)}`),
    (error: unknown) => log(`history-loader failed: ${(error as Error).message}`),
  );
  return loader;
}
