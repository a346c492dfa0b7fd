/**
 * The history loader: plans units from the universe and the checkpoints, runs them through the
 * client (whose limiter paces every request) with a few in flight, writes rows and checkpoints in
 * batches, and stops cleanly at the end of the plan, at a bound, on stop(), or when the day's
 * budget is spent (saying when it can go on).
 */

import { randomUUID } from 'node:crypto';
import { BrokerClient, type FetchLike, type RateLimiter, type TokenSource } from '@feedpipe/broker-api';
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { Backoff, sleep } from '@feedpipe/retry';
import { runMigrations, type StoreLane } from '@feedpipe/store';
import { Registry } from 'prom-client';
import { DAY_MS, limiterForBudget, readSpentBudget } from './budget.js';
import { formatDate, inMarketHours, istDayOf } from './calendar.js';
import { CheckpointIndex, checkpointRow, readCheckpoints, type UnitStatus } from './checkpoints.js';
import { classifyFailure } from './classify.js';
import { countingFetch } from './counting-fetch.js';
import { configError, LoaderError } from './errors.js';
import { fetchUnit } from './fetch-unit.js';
import { createLoaderMetrics, type LoaderMetrics } from './metrics.js';
import { type HistoryLoaderOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { idleStatus, type LoaderState, type LoaderStatus, RateMeter } from './run-state.js';
import type { TradingCalendar } from './trading-calendar.js';
import {
  chainUnits,
  planClock,
  snapshotSlot,
  staticUnits,
  UNIT_KINDS,
  type UnitKind,
  unitKey,
  type WorkUnit,
} from './units.js';
import type { UniverseInstrument } from './universe.js';
import { BatchWriter } from './writer.js';

export type LoaderLog = (event: string, fields: Record<string, unknown>) => void;

export interface HistoryLoaderDeps {
  /** Where rows and checkpoints go. Required. */
  clickhouse: StoreLane;
  /**
   * The access token of the account in config.broker, or a holder that renews it: a source the
   * loader asks at each request, so a port, not data. Required. Never logged.
   */
  accessToken: string | TokenSource;
  /** Metrics registry. Default: a new one (see `registry`). */
  registry?: Registry;
  /** Share an account's limiter with other parts of the process. Default: one made from the day's budget left. */
  rateLimiter?: RateLimiter;
  /** Default: global fetch. */
  fetch?: FetchLike;
  /** Structured events (plan, unit failures, stop reasons). Default: none. */
  log?: LoaderLog;
  /** Metrics made once for several runs (the scheduled loader). Default: made on `registry`. */
  metrics?: LoaderMetrics;
  /**
   * The clock that says which days to plan (epoch ms). Default Date.now. Pacing, the budget and
   * timings keep the real clock: they count what the service sees now.
   */
  now?: () => number;
  /**
   * The trading calendar (the scheduled loader): a day whose session closed is final, so its
   * windows are loaded as 'done', and units partly loaded by earlier runs keep only their new days.
   * Default: none (today is partial, whole windows are planned).
   */
  calendar?: TradingCalendar;
  /** While it says paused, no unit starts and nothing is written (the disk guard). Default: none. */
  diskGuard?: WriteGate;
}

/** What the loader asks of a disk guard (service-kit's DiskGuard). */
export interface WriteGate {
  readonly paused: boolean;
  whenWritable(signal?: AbortSignal): Promise<void>;
}

export interface PlanSummary {
  /** Units to run now, by kind (option chains: those known before any expiry list is fetched). */
  units: Record<UnitKind, number>;
  todo: number;
  skippedDone: number;
  skippedFailed: number;
  /** Option-chain units still to come from expiry lists fetched during the run (estimate). */
  chainUnitsExpected: number;
  /** Requests the plan needs (one per unit), and what that is in days of the daily budget. */
  requests: number;
  budgetDays: number;
  budgetLeft: number;
  /** At 5 requests per second. */
  minimumSeconds: number;
  from: string;
  until: string;
}

export interface RunResult extends LoaderStatus {
  seconds: number;
}

export interface HistoryLoader {
  readonly registry: Registry;
  readonly metrics: LoaderMetrics;
  /** The plan as a dry run sees it: nothing is fetched. */
  plan(): Promise<PlanSummary>;
  /** Loads until the plan is done, a bound is reached, stop() is called or the budget is spent. */
  run(): Promise<RunResult>;
  /** Stops starting units, aborts the running ones (they stay unrecorded), flushes, waits for run(). */
  stop(): Promise<void>;
  status(): LoaderStatus;
}

/** What createHistoryLoader is handed besides its options (HistoryLoaderDeps documents each). */
const LOADER_DEPS = {
  clickhouse: { kind: 'given', required: true },
  accessToken: { kind: 'given', required: true },
  ...given('registry', 'rateLimiter', 'fetch', 'log', 'metrics', 'now', 'calendar', 'diskGuard'),
} as const satisfies OptionsSchema;

function isToken(token: unknown): token is string | TokenSource {
  return (
    (typeof token === 'string' && token !== '') ||
    (typeof token === 'object' && token !== null && typeof (token as TokenSource).getToken === 'function')
  );
}

/** Checks the deps of a loader (CONFIG_INVALID): the allowed keys, and a usable token. */
export function checkLoaderDeps(deps: Omit<HistoryLoaderDeps, 'calendar'>): void {
  readOptions(LOADER_DEPS, deps, { where: 'history loader deps', fail: configError });
  if (!isToken(deps.accessToken)) throw configError('accessToken must be a token or a TokenSource');
}

export function createHistoryLoader(options: HistoryLoaderOptions, deps: HistoryLoaderDeps): HistoryLoader {
  const config = resolveOptions(options);
  checkLoaderDeps(deps);
  return new Loader(config, deps);
}

class Loader implements HistoryLoader {
  readonly registry: Registry;
  readonly metrics: LoaderMetrics;
  readonly #config: ResolvedOptions;
  readonly #deps: HistoryLoaderDeps;
  readonly #log: LoaderLog;
  readonly #abort = new AbortController();
  readonly #runId = randomUUID();
  #state: LoaderState = 'idle';
  #status: LoaderStatus;
  #meter = new RateMeter(Date.now());
  #queue: WorkUnit[] = [];
  #queueAt = 0;
  /** Keys of the units planned this run: a chain may be found both in stored and in fresh expiry lists. */
  #planned = new Set<string>();
  #index: CheckpointIndex | undefined;
  #expiries = new Map<string, { inst: UniverseInstrument; expiries: string[] }>();
  #wake: (() => void) | undefined;
  #dispatching = true;
  #started = 0;
  #unflushedRequests = 0;
  #budgetLeft = 0;
  #running: Promise<RunResult> | undefined;
  #writer: BatchWriter | undefined;

  constructor(config: ResolvedOptions, deps: HistoryLoaderDeps) {
    this.#config = config;
    this.#deps = deps;
    this.#log = deps.log ?? (() => undefined);
    this.registry = deps.registry ?? new Registry();
    this.metrics = deps.metrics ?? createLoaderMetrics(this.registry);
    this.#status = this.#freshStatus();
  }

  /** The planning clock (see HistoryLoaderDeps.now). */
  readonly #now = (): number => (this.#deps.now ?? Date.now)();

  get #incremental(): boolean {
    return this.#deps.calendar !== undefined;
  }

  #clock(nowMs: number) {
    const calendar = this.#deps.calendar;
    return planClock(
      this.#config.plan,
      nowMs,
      calendar === undefined ? undefined : (segment, at) => calendar.settledDay(segment, at),
    );
  }

  status(): LoaderStatus {
    const s = this.#status;
    const now = Date.now();
    const rate = this.#meter.rate(now);
    const remaining = Math.max(0, s.unitsTotal - s.unitsFinished);
    return {
      ...s,
      state: this.#state,
      inFlight: Math.max(0, this.#started - s.unitsFinished),
      rate,
      budgetLeft: this.#budgetLeft,
      etaSeconds: rate > 0 ? Math.round(remaining / rate) : undefined,
      byKind: structuredClone(s.byKind),
    };
  }

  async plan(): Promise<PlanSummary> {
    const client = this.#deps.clickhouse;
    if (this.#config.migrate) await runMigrations(client);
    const now = this.#now();
    const index = new CheckpointIndex(await readCheckpoints(client));
    const clock = this.#clock(now);
    const filtered = index.filter(
      staticUnits(this.#config.universe, this.#config.plan, clock),
      this.#incremental,
    );
    const chains = this.#config.plan.optionChain.enabled
      ? index.filter(await this.#storedChainUnits(now), this.#incremental).todo
      : [];
    const units = Object.fromEntries(UNIT_KINDS.map((k) => [k, 0])) as Record<UnitKind, number>;
    for (const u of [...filtered.todo, ...chains]) units[u.kind]++;
    const knownChainUnderlyings = new Set(chains.map((u) => u.securityId));
    const chainUnitsExpected =
      filtered.todo.filter((u) => u.kind === 'expiry_list' && !knownChainUnderlyings.has(u.securityId))
        .length * this.#config.plan.optionChain.expiries;
    const requests = filtered.todo.length + chains.length + chainUnitsExpected;
    const spent = await readSpentBudget(client, this.#config.broker.clientId, Date.now());
    const firstDay = Math.min(...filtered.todo.map((u) => istDayOf(u.fromS * 1000)), clock.today);
    return {
      units,
      todo: filtered.todo.length + chains.length,
      skippedDone: filtered.skippedDone,
      skippedFailed: filtered.skippedFailed,
      chainUnitsExpected,
      requests,
      budgetDays: Math.round((requests / this.#config.dailyBudget) * 100) / 100,
      budgetLeft: Math.max(0, this.#config.dailyBudget - spent.spent),
      minimumSeconds: Math.ceil(requests / 5),
      from: formatDate(firstDay),
      until: formatDate(clock.until),
    };
  }

  run(): Promise<RunResult> {
    if (this.#running) return Promise.reject(new LoaderError('ALREADY_RUNNING', 'run() was already called'));
    this.#running = this.#run();
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#dispatching = false;
    if (this.#state === 'running') this.#state = 'stopping';
    this.#abort.abort();
    this.#wakeAll();
    await this.#running?.catch(() => undefined);
  }

  #freshStatus(): LoaderStatus {
    return idleStatus(this.#runId);
  }

  async #run(): Promise<RunResult> {
    const started = Date.now();
    const s = this.#status;
    s.startedAt = started;
    this.#meter = new RateMeter(started);
    this.#state = 'planning';
    const cfg = this.#config;
    const store = this.#deps.clickhouse;
    try {
      if (cfg.migrate) await runMigrations(store);
      this.#index = new CheckpointIndex(await readCheckpoints(store));
      const spent = await readSpentBudget(store, cfg.broker.clientId, started);
      this.#budgetLeft = Math.max(0, cfg.dailyBudget - spent.spent);
      this.metrics.budgetLeft.set(this.#budgetLeft);
      if (this.#budgetLeft === 0 && this.#deps.rateLimiter === undefined) {
        s.resumeAt = (spent.oldestAt ?? started) + DAY_MS;
        this.#state = 'budget_exhausted';
        this.#log('budget_exhausted', { resumeAt: new Date(s.resumeAt).toISOString() });
        return this.#result(started);
      }
      const planAt = this.#now();
      const filtered = this.#index.filter(
        staticUnits(cfg.universe, cfg.plan, this.#clock(planAt)),
        this.#incremental,
      );
      s.unitsSkipped = filtered.skippedDone + filtered.skippedFailed;
      this.#enqueue(filtered.todo);
      if (cfg.plan.optionChain.enabled)
        this.#enqueue(this.#index.filter(await this.#storedChainUnits(planAt), this.#incremental).todo);
      this.#log('plan', {
        runId: this.#runId,
        units: s.unitsTotal,
        skipped: s.unitsSkipped,
        budgetLeft: this.#budgetLeft,
      });
      const client = this.#client();
      const writer = new BatchWriter(
        store,
        this.metrics,
        {
          flushRows: cfg.flushRows,
          flushIntervalMs: cfg.flushIntervalMs,
          maxBufferedRows: cfg.maxBufferedRows,
        },
        cfg.broker.clientId,
        () => {
          const n = this.#unflushedRequests;
          this.#unflushedRequests = 0;
          return n;
        },
        this.#deps.diskGuard,
        this.#abort.signal,
      );
      this.#writer = writer;
      writer.start();
      this.#state = 'running';
      if (this.#deps.rateLimiter === undefined && cfg.startupQuietMs > 0) {
        // A fresh limiter knows nothing of what a previous process of this account (one killed a
        // moment ago, say) sent within the last window; the service still counts those.
        await sleep(cfg.startupQuietMs, this.#abort.signal);
      }
      const deadline = Number.isFinite(cfg.maxSeconds) ? started + cfg.maxSeconds * 1000 : undefined;
      const deadlineTimer =
        deadline === undefined
          ? undefined
          : setTimeout(() => this.#endDispatch('bounded', 'maxSeconds'), deadline - started);
      const periodic = this.#startPeriodicChains();
      try {
        await Promise.all(Array.from({ length: cfg.concurrency }, () => this.#worker(client, writer)));
      } finally {
        if (deadlineTimer) clearTimeout(deadlineTimer);
        if (periodic) clearInterval(periodic);
      }
      await writer.close();
      s.rowsWritten = writer.rowsWritten;
      const final: LoaderState = this.#state;
      this.#state = final === 'running' ? 'done' : final === 'stopping' ? 'stopped' : final;
    } catch (error) {
      this.#dispatching = false;
      this.#abort.abort();
      this.#state = 'failed';
      s.error =
        error instanceof Error
          ? `${(error as { code?: string }).code ?? error.name}: ${error.message}`
          : String(error);
      this.#log('failed', { error: s.error });
      await this.#writer?.close().catch(() => undefined);
    }
    if (this.#writer) s.rowsWritten = this.#writer.rowsWritten;
    const result = this.#result(started);
    this.#log('finished', {
      state: result.state,
      units: result.unitsFinished,
      requests: result.requests,
      throttled: result.throttled,
      rows: result.rowsWritten,
      seconds: result.seconds,
      ...(result.resumeAt === undefined ? {} : { resumeAt: new Date(result.resumeAt).toISOString() }),
    });
    return result;
  }

  #result(started: number): RunResult {
    return { ...this.status(), seconds: (Date.now() - started) / 1000 };
  }

  #client(): BrokerClient {
    const cfg = this.#config;
    const inner = this.#deps.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    const counted = countingFetch(inner, (endpoint, outcome) => {
      const now = Date.now();
      this.#status.requests++;
      this.#unflushedRequests++;
      if (outcome === 'throttled') this.#status.throttled++;
      this.#budgetLeft = Math.max(0, this.#budgetLeft - 1);
      this.#meter.mark(now);
      this.metrics.requests.inc({ endpoint, outcome });
      this.metrics.budgetLeft.set(this.#budgetLeft);
    });
    return new BrokerClient({
      baseUrl: cfg.broker.baseUrl,
      clientId: cfg.broker.clientId,
      accessToken: this.#deps.accessToken,
      timeoutMs: cfg.broker.timeoutMs,
      rateLimiter: this.#deps.rateLimiter ?? limiterForBudget(this.#budgetLeft),
      fetch: counted,
    });
  }

  #enqueue(units: readonly WorkUnit[]): void {
    for (const u of units) {
      const key = unitKey(u);
      if (this.#planned.has(key)) continue;
      this.#planned.add(key);
      this.#queue.push(u);
      this.#status.unitsTotal++;
      this.#status.byKind[u.kind].total++;
    }
    this.metrics.queueDepth.set(this.#queue.length - this.#queueAt);
    this.#wakeAll();
  }

  #wakeAll(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #endDispatch(state: LoaderState, why: string): void {
    if (!this.#dispatching) return;
    this.#dispatching = false;
    if (this.#state === 'running') this.#state = state;
    this.#log('dispatch_ended', { reason: why });
    this.#wakeAll();
  }

  /** Waits until a unit is ready, or returns undefined when no more will come. */
  async #next(): Promise<WorkUnit | undefined> {
    // Bounded: every wait ends on an enqueue, a finished unit, a stop or the periodic timer.
    for (;;) {
      if (!this.#dispatching || this.#abort.signal.aborted) return undefined;
      const gate = this.#deps.diskGuard;
      if (gate?.paused) {
        // No request while the store cannot take its rows: the budget is not spent on them. A stop
        // or the end of dispatch (maxSeconds) wakes the wait too.
        await Promise.race([gate.whenWritable(this.#abort.signal), this.#nextWake()]);
        continue;
      }
      if (this.#queueAt < this.#queue.length) {
        if (this.#started >= this.#config.maxRequests) {
          this.#endDispatch('bounded', 'maxRequests');
          return undefined;
        }
        const u = this.#queue[this.#queueAt++] as WorkUnit;
        this.#started++;
        if (this.#queueAt > 1024 && this.#queueAt * 2 > this.#queue.length) {
          this.#queue = this.#queue.slice(this.#queueAt);
          this.#queueAt = 0;
        }
        this.metrics.queueDepth.set(this.#queue.length - this.#queueAt);
        return u;
      }
      const inFlight = this.#started - this.#status.unitsFinished;
      if (inFlight === 0 && !this.#periodicActive()) return undefined;
      await this.#nextWake();
    }
  }

  /** Resolves at the next #wakeAll (an enqueue, a finished unit, a stop, the end of dispatch). */
  #nextWake(): Promise<void> {
    return new Promise<void>((resolve) => {
      const previous = this.#wake;
      this.#wake = () => {
        previous?.();
        resolve();
      };
    });
  }

  async #worker(client: BrokerClient, writer: BatchWriter): Promise<void> {
    for (let u = await this.#next(); u !== undefined; u = await this.#next()) {
      this.metrics.inFlight.set(this.#started - this.#status.unitsFinished);
      try {
        await this.#runUnit(client, writer, u);
      } finally {
        this.metrics.inFlight.set(this.#started - this.#status.unitsFinished);
        this.#wakeAll();
      }
    }
  }

  async #runUnit(client: BrokerClient, writer: BatchWriter, u: WorkUnit): Promise<void> {
    const cfg = this.#config;
    const signal = this.#abort.signal;
    const t0 = performance.now();
    // Transient failures wait min(cap, base * 2^n), of which a random half (Backoff's floor 0.5).
    const backoff = new Backoff({ initialMs: cfg.retryBaseMs, maxMs: cfg.retryMaxMs, floor: 0.5 });
    for (let attempt = 1; attempt <= cfg.maxAttempts; attempt++) {
      try {
        const out = await fetchUnit(client, u, signal, this.#now);
        this.metrics.unitSeconds.observe({ kind: u.kind }, (performance.now() - t0) / 1000);
        const status: UnitStatus = u.partial ? 'partial' : 'done';
        await writer.add(
          out.table,
          out.rows,
          checkpointRow(u, status, out.rows.length, attempt, '', this.#runId, Date.now()),
        );
        this.#finish(u, status);
        if (out.expiries !== undefined) this.#onExpiries(u, out.expiries);
        return;
      } catch (error) {
        if (error instanceof LoaderError) throw error;
        const failure = classifyFailure(error);
        if (failure.kind === 'aborted' || signal.aborted) return this.#unfinished();
        if (failure.kind === 'budget') {
          this.#status.resumeAt = failure.retryAt;
          this.#log('budget_exhausted', {
            resumeAt: failure.retryAt === undefined ? undefined : new Date(failure.retryAt).toISOString(),
          });
          this.#endDispatch('budget_exhausted', 'budget');
          return this.#unfinished();
        }
        if (failure.kind === 'fatal') {
          this.#status.error = failure.reason;
          this.#endDispatch('failed', 'fatal');
          this.#state = 'failed';
          return this.#unfinished();
        }
        if (failure.kind === 'transient' && attempt < cfg.maxAttempts) {
          await sleep(backoff.next(), signal);
          continue;
        }
        const status: UnitStatus = failure.kind === 'permanent' ? 'failed' : 'retry';
        this.#log('unit_failed', {
          kind: u.kind,
          securityId: u.securityId,
          variant: u.variant,
          status,
          reason: failure.reason,
        });
        await writer.add(
          undefined,
          [],
          checkpointRow(u, status, 0, attempt, failure.reason, this.#runId, Date.now()),
        );
        this.#finish(u, status);
        return;
      }
    }
  }

  /** A unit that stopped without a checkpoint: it counts as finished for this run only. */
  #unfinished(): void {
    this.#status.unitsFinished++;
  }

  #finish(u: WorkUnit, status: UnitStatus): void {
    const s = this.#status;
    s.unitsFinished++;
    s.byKind[u.kind].finished++;
    if (status === 'done') s.unitsDone++;
    else if (status === 'partial') s.unitsPartial++;
    else if (status === 'failed') s.unitsFailed++;
    else s.unitsRetry++;
    s.rowsWritten = this.#writer?.rowsWritten ?? s.rowsWritten;
    this.metrics.units.inc({ kind: u.kind, status });
  }

  #onExpiries(u: WorkUnit, expiries: string[]): void {
    if (!this.#config.plan.optionChain.enabled) return;
    this.#expiries.set(`${u.segment}|${u.securityId}`, { inst: u.instrument, expiries });
    const units = chainUnits(
      u.instrument,
      expiries,
      this.#config.plan,
      snapshotSlot(this.#config.plan, this.#now()),
    );
    this.#enqueue(this.#index?.filter(units, this.#incremental).todo ?? units);
  }

  /** Chain units for underlyings whose expiry list an earlier run already stored today. */
  async #storedChainUnits(nowMs: number): Promise<WorkUnit[]> {
    const today = formatDate(istDayOf(nowMs));
    const rows = await this.#deps.clickhouse.rows<{ id: number | string; seg: string; expiries: string[] }>(
      `SELECT underlying_id AS id, underlying_segment AS seg, groupArray(toString(expiry)) AS expiries
       FROM ${HISTORY_TABLES.expiryLists.name} FINAL WHERE as_of = {today:Date} GROUP BY id, seg`,
      { today },
    );
    const out: WorkUnit[] = [];
    for (const row of rows) {
      const inst = this.#config.universe.find(
        (i) => i.optionChain && i.securityId === Number(row.id) && i.segment === row.seg,
      );
      if (inst === undefined) continue;
      this.#expiries.set(`${inst.segment}|${inst.securityId}`, { inst, expiries: row.expiries });
      out.push(...chainUnits(inst, row.expiries, this.#config.plan, snapshotSlot(this.#config.plan, nowMs)));
    }
    return out;
  }

  #periodicActive(): boolean {
    const c = this.#config.plan.optionChain;
    if (!c.enabled || c.everySeconds === 0 || !this.#dispatching) return false;
    return !c.marketHoursOnly || inMarketHours(this.#now());
  }

  /** Every K seconds, a snapshot of each known underlying's nearest expiries (market hours only by default). */
  #startPeriodicChains(): NodeJS.Timeout | undefined {
    const c = this.#config.plan.optionChain;
    if (!c.enabled || c.everySeconds === 0) return undefined;
    return setInterval(() => {
      if (!this.#periodicActive()) {
        this.#wakeAll();
        return;
      }
      // A round still queued means the budget cannot keep up with K: skip this slot, never pile up.
      if (this.#queueAt < this.#queue.length) return;
      const slot = snapshotSlot(this.#config.plan, this.#now());
      for (const { inst, expiries } of this.#expiries.values()) {
        this.#enqueue(chainUnits(inst, expiries, this.#config.plan, slot));
      }
    }, c.everySeconds * 1000);
  }
}
