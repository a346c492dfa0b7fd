/**
 * The short history load `npm start` runs beside the live pipeline (scripts/start.ts): which file,
 * how long, on or off, from the environment (docs/configuration.md, `npm start`). What it loads is
 * the plan in that file (`services/history-loader/universe/demo.json`: dailies from 2021, 5-minute
 * intraday and expired-option candles over short windows), passed on explicitly so the run cannot
 * fall back to the library's defaults (dailies from 2000, 1-minute expired options over 90 days:
 * a demo's 120 s budget spent on rows nobody asked for).
 */

import { isAbsolute, resolve } from 'node:path';
import { type Env, type EnvSchema, type EnvValues, readEnv } from '@feedpipe/config';
import { configError } from './errors.js';
import type { InstrumentMasterOptions } from './instruments/instrument-master.js';
import { instrumentMasterUrl } from './instruments/master-url.js';
import type { BrokerOptions, HistoryLoaderOptions } from './options.js';
import type { PlanOptions } from './plan-options.js';
import { readUniversePlan } from './universe.js';

/** The demo universe and plan, relative to the repository root. */
export const DEMO_UNIVERSE_FILE = 'services/history-loader/universe/demo.json';

export const PIPELINE_LOAD_ENV = {
  HISTORY_LOAD: {
    type: 'enum',
    values: ['on', 'off', 'schedule'],
    default: 'on',
    description:
      "`off` skips the short history load; `schedule` runs it as the scheduled loader (the simulator's calendar: a run now, then after each weekday's close)",
  },
  HISTORY_UNIVERSE_FILE: {
    type: 'string',
    default: DEMO_UNIVERSE_FILE,
    description:
      'universe and plan of the history load (a JSON file with a `plan` object, or CSV for the defaults)',
  },
  HISTORY_MAX_SECONDS: {
    type: 'integer',
    min: 1,
    max: 86_400,
    default: 120,
    description: 'the history load starts no new request after this many seconds',
  },
  INSTRUMENT_MASTER_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: "the REST base URL's `/api-data/api-scrip-master-detailed.csv` (the simulator's list)",
    description:
      'the instrument list loaded into market.instruments at start and daily at 07:30 IST (set it with the real service)',
  },
} as const satisfies EnvSchema;

export type PipelineLoadEnv = EnvValues<typeof PIPELINE_LOAD_ENV>;

/** Whether HISTORY_LOAD asks for the scheduled loader (ScheduledLoader) instead of one run. */
export function pipelineLoadScheduled(env: Env): boolean {
  return readEnv(PIPELINE_LOAD_ENV, env).values.HISTORY_LOAD === 'schedule';
}

/**
 * The loader options of the pipeline's history load, or undefined when HISTORY_LOAD is off.
 * Relative universe paths are taken from `root` (the repository). CONFIG_INVALID names every bad
 * variable; a universe file that cannot be read or a bad plan fails here, before anything starts.
 */
export function pipelineLoadOptions(
  env: Env,
  broker: BrokerOptions,
  root: string,
): HistoryLoaderOptions | undefined {
  const { values, problems } = readEnv(PIPELINE_LOAD_ENV, env);
  if (problems.length > 0) throw configError(problems.join('; '));
  if (values.HISTORY_LOAD === 'off') return undefined;
  const universe = isAbsolute(values.HISTORY_UNIVERSE_FILE)
    ? values.HISTORY_UNIVERSE_FILE
    : resolve(root, values.HISTORY_UNIVERSE_FILE);
  const plan = readUniversePlan(universe) as PlanOptions | undefined;
  return {
    broker,
    universe,
    ...(plan === undefined ? {} : { plan }),
    maxSeconds: values.HISTORY_MAX_SECONDS,
    // The pipeline migrated the store before starting anything.
    migrate: false,
  };
}

/**
 * The instrument list of the pipeline: loaded whenever there is a REST base URL, whether or not the
 * history load runs (HISTORY_LOAD=off leaves the symbols an analyst joins against).
 */
export function pipelineInstrumentMaster(env: Env, baseUrl: string): InstrumentMasterOptions {
  const { values, problems } = readEnv(PIPELINE_LOAD_ENV, env);
  if (problems.length > 0) throw configError(problems.join('; '));
  return { url: instrumentMasterUrl(values.INSTRUMENT_MASTER_URL, baseUrl) };
}
