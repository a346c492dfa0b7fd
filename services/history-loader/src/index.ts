export { HISTORY_LOADER_ENV, type HistoryLoaderEnv, historyLoaderEnv } from './env.js';
export { LoaderError, type LoaderErrorCode } from './errors.js';
export { InstrumentMasterLoader, type InstrumentMasterResult } from './instruments/instrument-master.js';
export { createHistoryLoader, type HistoryLoader, type RunResult } from './loader.js';
export { type BrokerOptions, type HistoryLoaderOptions, resolveOptions } from './options.js';
export {
  PIPELINE_LOAD_ENV,
  pipelineInstrumentMaster,
  pipelineLoadOptions,
  pipelineLoadScheduled,
} from './pipeline-load.js';
export { quoteRequest, readQuoteInstruments } from './quotes/quote-instruments.js';
export { createQuotePollerMetrics } from './quotes/quote-metrics.js';
export {
  QuotePoller,
  type QuotePublisher,
  quoteClient,
} from './quotes/quote-poller.js';
export type { LoaderStatus } from './run-state.js';
export { nextRunAt } from './schedule.js';
export { ScheduledLoader } from './scheduled-loader.js';
export { TradingCalendar } from './trading-calendar.js';
export type { UniverseRow } from './universe.js';
