/**
 * Today's list against the versions stored as current: what to write so market.instruments keeps
 * each row's history. An unchanged row writes nothing (a second load of the same list is a no-op);
 * a changed row is closed on `day` and a new version starts that day; a row gone from the list is
 * closed; a new row starts. A version that started today is replaced rather than closed, so a list
 * republished within the day leaves no empty interval behind.
 */
import {
  attributesText,
  type InstrumentAttributes,
  type InstrumentVersion,
  instrumentKey,
} from './instrument-row.js';

export interface VersionChanges {
  /** Versions starting on `day` (new rows and the new version of changed ones). */
  open: InstrumentVersion[];
  /** Current versions that end on `day` (valid_to = day). */
  close: InstrumentVersion[];
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
}

export function versionChanges(
  current: readonly InstrumentVersion[],
  listed: readonly InstrumentAttributes[],
  day: string,
): VersionChanges {
  const stored = new Map(current.map((v) => [instrumentKey(v), v]));
  const changes: VersionChanges = { open: [], close: [], added: 0, changed: 0, removed: 0, unchanged: 0 };
  for (const row of listed) {
    const key = instrumentKey(row);
    const before = stored.get(key);
    stored.delete(key);
    if (before === undefined) {
      changes.added += 1;
      changes.open.push({ ...row, validFrom: day });
    } else if (attributesText(before) === attributesText(row)) {
      changes.unchanged += 1;
    } else {
      changes.changed += 1;
      if (before.validFrom !== day) changes.close.push(before);
      changes.open.push({ ...row, validFrom: day });
    }
  }
  for (const gone of stored.values()) {
    changes.removed += 1;
    changes.close.push(gone);
  }
  return changes;
}
