/**
 * The deterministic market model: live state of every instrument as columns of typed arrays (one
 * slot per universe index), advanced one trade at a time by the feed, read by the feed and the REST
 * server.
 *
 * Prices are held as whole numbers of ticks and turned into decimals by dividing by ticks-per-unit, so
 * a price is always an exact multiple of the tick size (12345 / 100 is the double closest to 123.45).
 * Every random draw comes from the instrument's own PRNG slot: the n-th trade of an instrument is a
 * function of (seed, security id, n) and of the trade times passed in, nothing else.
 */
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { invalidOption } from './errors.js';
import { MAX_TICKERS } from './identifiers.js';
import { hash3, nextUint32, unit3 } from './prng.js';
import { type SessionCycle, sessionAt } from './sessions.js';
import type { Instrument, LiveQuote, MarketSession, SessionChange } from './types.js';
import { buildUniverse, startsWithoutReference } from './universe.js';

export interface MarketModelOptions {
  /** PRNG seed, an integer in [0, 2^32). Required. */
  seed: number;
  /** Number of INX_EQ instruments (the live-feed universe). Default 30 000, at most 400 000. */
  instruments?: number;
  /** Clock in epoch ms. Default `Date.now`; inject a fake one for byte-identical runs. */
  now?: () => number;
  /**
   * Session schedule: a repeating pre-open / open / closed cycle anchored at the Unix epoch.
   * Default: undefined, always OPEN.
   */
  sessions?: SessionCycle;
}

const WHERE = 'MarketModel';
const WEEK_MS = 7 * 86_400_000;

/** Every key of MarketModelOptions (documented there), with its range and default. */
const MODEL_OPTIONS = {
  seed: { kind: 'integer', min: 0, max: 0xffffffff, required: true },
  instruments: { kind: 'integer', min: 1, max: 400_000, default: 30_000 },
  // A clock (checked below) and a schedule that is complete when given (SESSION_OPTIONS).
  ...given('now', 'sessions'),
} as const satisfies OptionsSchema;

const SESSION_OPTIONS = {
  preOpenMs: { kind: 'integer', min: 0, max: WEEK_MS, default: 0 },
  openMs: { kind: 'integer', min: 1, max: WEEK_MS, default: 1 },
  closedMs: { kind: 'integer', min: 0, max: WEEK_MS, default: 0 },
} as const satisfies OptionsSchema;
/** Circuit band around the previous close (equities); indices have none. */
const CIRCUIT_BAND = 0.2;
/** Instruments outside the live feed advance lazily by wall clock, one trade per this many seconds. */
const LAZY_TRADE_EVERY_SEC = 1;
/** Cap on lazy catch-up trades per read, so a quote after a long idle stays O(1). */
const MAX_LAZY_TRADES = 60;

function validateSessions(value: SessionCycle | undefined): SessionCycle | undefined {
  if (value === undefined) return undefined;
  return readOptions(SESSION_OPTIONS, value, { where: `${WHERE}.sessions`, fail: invalidOption });
}

export class MarketModel {
  readonly seed: number;
  readonly universe: readonly Instrument[];
  /** Number of instruments (universe indices run from 0 to size - 1). */
  readonly size: number;

  private readonly clock: () => number;
  private readonly cycle: SessionCycle | undefined;
  private readonly byId = new Map<number, number>();
  private readonly securityIds: Int32Array;
  private readonly ticksPerUnit: Int32Array;
  private readonly liveFed: Uint8Array;
  private readonly rng: Uint32Array;
  private readonly ltpTicks: Int32Array;
  private readonly openTicks: Int32Array;
  private readonly highTicks: Int32Array;
  private readonly lowTicks: Int32Array;
  private readonly prevCloseTicks: Int32Array;
  private readonly upperTicks: Int32Array;
  private readonly lowerTicks: Int32Array;
  private readonly week52HighTicks: Int32Array;
  private readonly week52LowTicks: Int32Array;
  private readonly stepTicks: Int32Array;
  private readonly volumes: Float64Array;
  private readonly ltts: Int32Array;
  private readonly luts: Int32Array;
  private readonly lazyClockSec: Float64Array;
  private readonly referencePending: Uint8Array;
  private currentSession: MarketSession;

  constructor(options: MarketModelOptions) {
    const { seed, instruments: inxCount } = readOptions(MODEL_OPTIONS, options, {
      where: WHERE,
      fail: invalidOption,
    });
    this.seed = seed;
    if (options.now !== undefined && typeof options.now !== 'function')
      throw invalidOption(`${WHERE}: "now" must be a function`);
    this.clock = options.now ?? Date.now;
    this.cycle = validateSessions(options.sessions);
    if (inxCount > MAX_TICKERS) throw invalidOption(`${WHERE}: too many instruments`);

    const { instruments, bases } = buildUniverse(this.seed, inxCount);
    this.universe = instruments;
    const n = instruments.length;
    this.size = n;
    this.securityIds = new Int32Array(n);
    this.ticksPerUnit = new Int32Array(n);
    this.liveFed = new Uint8Array(n);
    this.rng = new Uint32Array(n);
    this.ltpTicks = new Int32Array(n);
    this.openTicks = new Int32Array(n);
    this.highTicks = new Int32Array(n);
    this.lowTicks = new Int32Array(n);
    this.prevCloseTicks = new Int32Array(n);
    this.upperTicks = new Int32Array(n);
    this.lowerTicks = new Int32Array(n);
    this.week52HighTicks = new Int32Array(n);
    this.week52LowTicks = new Int32Array(n);
    this.stepTicks = new Int32Array(n);
    this.volumes = new Float64Array(n);
    this.ltts = new Int32Array(n);
    this.luts = new Int32Array(n);
    this.lazyClockSec = new Float64Array(n);
    this.referencePending = new Uint8Array(n);

    const nowMs = this.clock();
    const nowSec = Math.floor(nowMs / 1000);
    this.currentSession = sessionAt(this.cycle, nowMs);
    for (let i = 0; i < n; i++) {
      const instrument = instruments[i] as Instrument;
      const base = bases[i] as (typeof bases)[number];
      const id = instrument.securityId;
      this.byId.set(id, i);
      this.securityIds[i] = id;
      this.ticksPerUnit[i] = base.ticksPerUnit;
      this.liveFed[i] = instrument.exchangeSegment === 'INX_EQ' ? 1 : 0;
      this.rng[i] = hash3(this.seed, id, 2);
      this.startDay(i, base.prevCloseTicks, instrument.instrumentType === 'INDEX');
      // The day is already under way when the simulator starts: a first trade near the previous
      // close, some volume, a last trade within the past five minutes.
      const open = this.clampToBand(
        i,
        base.prevCloseTicks + Math.round((unit3(this.seed, id, 3) - 0.5) * 0.04 * base.prevCloseTicks),
      );
      this.openTicks[i] = open;
      this.highTicks[i] = open;
      this.lowTicks[i] = open;
      this.ltpTicks[i] = open;
      this.volumes[i] = 100 + (hash3(this.seed, id, 4) % 50_000);
      this.ltts[i] = nowSec - (hash3(this.seed, id, 5) % 300);
      this.luts[i] = nowSec;
      this.lazyClockSec[i] = nowSec;
      const yearSpread = 0.05 + unit3(this.seed, id, 6) * 0.5;
      this.week52HighTicks[i] = Math.max(open, Math.round(base.prevCloseTicks * (1 + yearSpread)));
      this.week52LowTicks[i] = Math.max(
        1,
        Math.min(open, Math.round(base.prevCloseTicks * (1 - yearSpread * 0.8))),
      );
      this.referencePending[i] = startsWithoutReference(this.seed, id) ? 1 : 0;
    }
  }

  /** The model clock, epoch ms. */
  now(): number {
    return this.clock();
  }

  /** Universe index of a security id, or -1. */
  indexOf(securityId: number): number {
    return this.byId.get(securityId) ?? -1;
  }

  instrument(securityId: number): Instrument | undefined {
    const i = this.indexOf(securityId);
    return i < 0 ? undefined : this.universe[i];
  }

  /** Current live state. Instruments outside the live feed (NSE/BSE/indices) catch up with the clock here. */
  quote(securityId: number): LiveQuote | undefined {
    const i = this.indexOf(securityId);
    if (i < 0) return undefined;
    this.syncSession();
    if (this.liveFed[i] === 0) this.catchUp(i);
    const pending = this.referencePending[i] === 1;
    return {
      securityId,
      ltp: this.ltpAt(i),
      open: this.openAt(i),
      high: this.highAt(i),
      low: this.lowAt(i),
      prevClose: this.prevCloseAt(i),
      volume: this.volumes[i] ?? 0,
      lastTradeTime: this.ltts[i] ?? 0,
      lastUpdateTime: this.luts[i] ?? 0,
      upperCircuit: pending ? 0 : this.upperCircuitAt(i),
      lowerCircuit: pending ? 0 : this.lowerCircuitAt(i),
      week52High: pending ? 0 : this.week52HighAt(i),
      week52Low: pending ? 0 : this.week52LowAt(i),
    };
  }

  session(): MarketSession {
    this.syncSession();
    return this.currentSession;
  }

  /**
   * Moves the model to the session of the current clock and reports the change, if any. Entering
   * OPEN starts a new trading day: previous close := last price, day open/high/low and volume reset,
   * circuit limits re-centred.
   */
  syncSession(): SessionChange | undefined {
    const atMs = this.clock();
    const next = sessionAt(this.cycle, atMs);
    const from = this.currentSession;
    if (next === from) return undefined;
    this.currentSession = next;
    if (next === 'OPEN') {
      for (let i = 0; i < this.size; i++) {
        this.startDay(i, this.ltpTicks[i] ?? 1, this.universe[i]?.instrumentType === 'INDEX');
      }
    }
    return { from, to: next, atMs };
  }

  /**
   * One trade of the instrument at universe index `i`, at epoch second `nowSec`: a bounded random
   * step of the price (clamped to the circuit band), volume up by 1..100 lots. The feed calls this
   * for every trade it publishes; volume strictly increasing per trade lets a consumer find
   * duplicates. With `singleLot` the volume grows by exactly one lot, so it doubles as a per-instrument
   * sequence number and a consumer can find gaps too (load mode uses this). The PRNG advances the same
   * way either way.
   */
  trade(i: number, nowSec: number, singleLot = false): void {
    // One 32-bit draw split into three fields (12 bits step size, 10 bits direction, 10 bits lots):
    // a third of the PRNG work on the load-mode hot path, resolution ample for a random walk.
    const bits = nextUint32(this.rng, i);
    const size = (bits >>> 20) / 4096;
    const direction = ((bits >>> 10) & 0x3ff) / 1024;
    const lots = (bits & 0x3ff) / 1024;
    let ticks = 0;
    if (size >= 0.35) {
      if (size < 0.65) ticks = 1;
      else if (size < 0.85) ticks = 2;
      else if (size < 0.96) ticks = 3 + Math.floor((size - 0.85) * 27);
      else ticks = 6 + Math.floor((size - 0.96) * 250);
    }
    const last = this.ltpTicks[i] ?? 1;
    const prev = this.prevCloseTicks[i] ?? 1;
    // Mean reversion towards the previous close keeps a long run inside a realistic range.
    const deviation = (last - prev) / prev;
    const upProbability = 0.5 - Math.max(-0.2, Math.min(0.2, deviation * 2));
    const step = ticks * (this.stepTicks[i] ?? 1);
    let price = direction < upProbability ? last + step : last - step;
    price = this.clampToBand(i, price);
    this.ltpTicks[i] = price;
    if ((this.openTicks[i] ?? 0) === 0) {
      this.openTicks[i] = price;
      this.highTicks[i] = price;
      this.lowTicks[i] = price;
    } else {
      if (price > (this.highTicks[i] ?? 0)) this.highTicks[i] = price;
      if (price < (this.lowTicks[i] ?? 0)) this.lowTicks[i] = price;
    }
    if (price > (this.week52HighTicks[i] ?? 0)) this.week52HighTicks[i] = price;
    if (price < (this.week52LowTicks[i] ?? 0)) this.week52LowTicks[i] = price;
    const lotCount = singleLot ? 1 : 1 + Math.floor(lots * 100);
    this.volumes[i] = (this.volumes[i] ?? 0) + lotCount * (this.universe[i]?.lotSize ?? 1);
    this.ltts[i] = nowSec;
    this.luts[i] = nowSec;
    // A fresh listing gets its reference values with its first trade under the simulator.
    this.referencePending[i] = 0;
  }

  /** Whether circuit limits and the 52-week range are known (false: the feed sends zero-filled packets). */
  hasReference(i: number): boolean {
    return this.referencePending[i] === 0;
  }

  instrumentAt(i: number): Instrument | undefined {
    return this.universe[i];
  }

  securityIdAt(i: number): number {
    return this.securityIds[i] ?? 0;
  }

  ltpAt(i: number): number {
    return (this.ltpTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  openAt(i: number): number {
    return (this.openTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  highAt(i: number): number {
    return (this.highTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  lowAt(i: number): number {
    return (this.lowTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  prevCloseAt(i: number): number {
    return (this.prevCloseTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  upperCircuitAt(i: number): number {
    return (this.upperTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  lowerCircuitAt(i: number): number {
    return (this.lowerTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  week52HighAt(i: number): number {
    return (this.week52HighTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  week52LowAt(i: number): number {
    return (this.week52LowTicks[i] ?? 0) / (this.ticksPerUnit[i] ?? 1);
  }

  volumeAt(i: number): number {
    return this.volumes[i] ?? 0;
  }

  lastTradeTimeAt(i: number): number {
    return this.ltts[i] ?? 0;
  }

  lastUpdateTimeAt(i: number): number {
    return this.luts[i] ?? 0;
  }

  private startDay(i: number, prevCloseTicks: number, isIndex: boolean): void {
    this.prevCloseTicks[i] = prevCloseTicks;
    this.openTicks[i] = 0;
    this.highTicks[i] = 0;
    this.lowTicks[i] = 0;
    this.volumes[i] = 0;
    if (isIndex) {
      this.upperTicks[i] = 0;
      this.lowerTicks[i] = 0;
    } else {
      this.upperTicks[i] = Math.round(prevCloseTicks * (1 + CIRCUIT_BAND));
      this.lowerTicks[i] = Math.max(1, Math.round(prevCloseTicks * (1 - CIRCUIT_BAND)));
    }
    // One step is 0.05 % of the price (at least one tick), so a $500 stock and a $5 stock move by
    // similar percentages per trade.
    this.stepTicks[i] = Math.max(1, Math.round(prevCloseTicks * 0.0005));
  }

  private clampToBand(i: number, price: number): number {
    const upper = this.upperTicks[i] ?? 0;
    const lower = this.lowerTicks[i] ?? 0;
    if (upper > 0 && price > upper) return upper;
    if (lower > 0 && price < lower) return lower;
    return Math.max(price, 1);
  }

  private catchUp(i: number): void {
    const nowSec = Math.floor(this.clock() / 1000);
    const since = this.lazyClockSec[i] ?? nowSec;
    if (this.currentSession === 'OPEN') {
      const due = Math.min(MAX_LAZY_TRADES, Math.floor((nowSec - since) / LAZY_TRADE_EVERY_SEC));
      for (let k = due - 1; k >= 0; k--) this.trade(i, nowSec - k * LAZY_TRADE_EVERY_SEC);
    }
    this.lazyClockSec[i] = nowSec;
  }
}
