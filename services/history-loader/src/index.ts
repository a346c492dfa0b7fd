export { DAY_MS, limiterForBudget, readSpentBudget, type SpentBudget } from './budget.js';
export { gridWindows, inMarketHours, istDayOf } from './calendar.js';
export {
  CheckpointIndex,
  LOAD_UNITS_TABLE,
  readCheckpoints,
  type StoredUnit,
  type UnitStatus,
} from './checkpoints.js';
export { classifyFailure, type Failure } from './classify.js';
export { countingFetch, endpointOf, type RequestOutcome } from './counting-fetch.js';
export { HISTORY_LOADER_ENV, type HistoryLoaderEnv, historyLoaderEnv } from './env.js';
export { LoaderError, type LoaderErrorCode } from './errors.js';
export {
  type InstrumentMasterDeps,
  InstrumentMasterLoader,
  type InstrumentMasterOptions,
  type InstrumentMasterResult,
  istDate,
} from './instruments/instrument-master.js';
export { type InstrumentMasterMetrics, instrumentMasterMetrics } from './instruments/instrument-metrics.js';
export { instrumentMasterUrl, SIM_INSTRUMENT_MASTER_PATH } from './instruments/master-url.js';
export {
  type ParsedMaster,
  parseMaster,
  type RejectedRow,
  type RejectReason,
} from './instruments/parse-master.js';
export {
  createHistoryLoader,
  type HistoryLoader,
  type HistoryLoaderDeps,
  type LoaderLog,
  type PlanSummary,
  type RunResult,
  type WriteGate,
} from './loader.js';
export { createLoaderMetrics, type LoaderMetrics } from './metrics.js';
export { type BrokerOptions, type HistoryLoaderOptions, resolveOptions } from './options.js';
export {
  DEMO_UNIVERSE_FILE,
  PIPELINE_LOAD_ENV,
  type PipelineLoadEnv,
  pipelineInstrumentMaster,
  pipelineLoadOptions,
  pipelineLoadScheduled,
} from './pipeline-load.js';
export {
  INTERVALS,
  type Interval,
  MAX_HISTORY_DAYS,
  type PlanOptions,
  type ResolvedPlan,
  resolvePlan,
} from './plan-options.js';
export { formatDuration, type ProgressReporter, progressLine, startProgress } from './progress.js';
export {
  MAX_QUOTE_INSTRUMENTS,
  quoteBatches,
  quoteRequest,
  readQuoteInstruments,
} from './quotes/quote-instruments.js';
export { createQuotePollerMetrics, type QuotePollerMetrics } from './quotes/quote-metrics.js';
export {
  QuotePoller,
  type QuotePollerDeps,
  type QuotePollerOptions,
  type QuotePollerStats,
  type QuotePublisher,
  quoteClient,
} from './quotes/quote-poller.js';
export { quoteRecord, quoteRow, tradeTimeOf } from './quotes/quote-records.js';
export type { LoaderState, LoaderStatus } from './run-state.js';
export { loadedSegments, nextRunAt, runOfDay } from './schedule.js';
export {
  RETRY_FAILED_MS,
  ScheduledLoader,
  type ScheduledLoaderDeps,
  type ScheduledLoaderOptions,
  type ScheduledStatus,
  type ScheduleState,
} from './scheduled-loader.js';
export { TABLES, type TableId } from './tables.js';
export { type CalendarSpec, DEFAULT_CLOSE_S, readCalendarFile, TradingCalendar } from './trading-calendar.js';
export {
  chainUnits,
  planClock,
  snapshotSlot,
  staticUnits,
  UNIT_KINDS,
  type UnitKind,
  type WorkUnit,
} from './units.js';
export {
  CHART_SEGMENTS,
  MAX_UNIVERSE_ROWS,
  parseUniverse,
  readUniverseFile,
  type UniverseInstrument,
  type UniverseRow,
} from './universe.js';
