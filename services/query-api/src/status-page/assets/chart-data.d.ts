// Types of chart-data.js (plain browser JavaScript, served as is), for the Node tests that import it.

export interface Bar {
  /** Slot start, epoch seconds (UTC). */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface Zone {
  offsetSec: number;
  name: string;
  label: string;
}

export interface Interval {
  step: number;
  windowSec: number;
  label: string;
}

export interface Band {
  fromSec: number;
  toSec: number;
  cause: string;
  connection: number | string | null;
}

export interface Cumulative {
  day: number;
  volume: number;
}

export type CandlePoint =
  | { time: number }
  | { time: number; open: number; high: number; low: number; close: number };
export type VolumePoint = { time: number } | { time: number; value: number; color: string };

export const INTERVALS: Record<'1s' | '1m' | '5m' | '1h' | '1d', Interval>;
export const ZONES: Record<'IST' | 'UTC', Zone>;
export const MAX_SLOTS: number;

export function epochSeconds(value: unknown): number;
export function barsFromRows(body: unknown): Bar[];
export function slotOf(epochSec: number, step: number): number;
export function chartSeries(
  bars: readonly Bar[],
  options: { step: number; toSec: number; offsetSec: number; bandsFromSec?: number },
  colours: { upVolume: string; downVolume: string },
): { candles: CandlePoint[]; volumes: VolumePoint[] };
export function applyTrade(
  bar: Bar | undefined,
  trade: { ltp: number; volume: number; ltt: number },
  step: number,
  previousCumulative: Cumulative | undefined,
): { bar: Bar; cumulative: Cumulative };
export function bandsFromGaps(body: unknown, securityId: number): Band[];
export function wallClock(chartSec: number, withSeconds: boolean): string;
export function wallDate(chartSec: number): string;
export function formatSlot(chartSec: number, step: number, zone: Zone): string;
export function tickLabel(chartSec: number, type: number): string;
export function clockIn(epochMs: number, zone: Zone): string;
export function formatPrice(value: number): string;
export function formatVolume(value: number): string;
