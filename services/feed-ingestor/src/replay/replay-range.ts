/**
 * The time range of a replay, by receive time, in epoch microseconds: [from, to). Either end may
 * be open. Given as ISO 8601 instants (`2026-11-27T09:15:00Z`) or epoch milliseconds.
 */
import { IngestorError } from '../errors.js';

export interface ReplayRange {
  fromMicros: number | undefined;
  toMicros: number | undefined;
}

function instantMicros(flag: string, text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms) || !(/^\d+$/.test(text) || /(Z|[+-]\d{2}:?\d{2})$/.test(text))) {
    throw new IngestorError(
      'REPLAY_INVALID',
      `${flag} must be an ISO 8601 instant with its zone (2026-11-27T09:15:00Z) or epoch milliseconds; got "${text}"`,
    );
  }
  return ms * 1000;
}

export function parseReplayRange(from: string | undefined, to: string | undefined): ReplayRange {
  const range = {
    fromMicros: from === undefined ? undefined : instantMicros('--from', from),
    toMicros: to === undefined ? undefined : instantMicros('--to', to),
  };
  if (range.fromMicros !== undefined && range.toMicros !== undefined && range.toMicros <= range.fromMicros) {
    throw new IngestorError('REPLAY_INVALID', `--to (${to}) must be after --from (${from})`);
  }
  return range;
}

export function inRange(range: ReplayRange, micros: number): boolean {
  return (
    (range.fromMicros === undefined || micros >= range.fromMicros) &&
    (range.toMicros === undefined || micros < range.toMicros)
  );
}
