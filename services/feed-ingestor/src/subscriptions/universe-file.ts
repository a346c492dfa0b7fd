/**
 * The universe files (UNIVERSE_FILE, OHLC_UNIVERSE_FILE): read at start and, while running, watched
 * for edits (universe-watch.ts).
 */
import { readFileSync } from 'node:fs';
import { IngestorError } from '../errors.js';

/**
 * Reads a universe of security ids: a JSON array of ids or of objects with `securityId`, or CSV with a
 * `securityId` (or `security_id`) column. Only INX_EQ rows are kept when a segment column is present.
 */
export function readUniverseIds(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const ids: string[] = [];
  if (path.endsWith('.json')) {
    const parsed = JSON.parse(text) as unknown;
    const rows = Array.isArray(parsed) ? parsed : ((parsed as { instruments?: unknown[] }).instruments ?? []);
    for (const row of rows) {
      if (typeof row === 'number' || typeof row === 'string') ids.push(String(row));
      else if (row && typeof row === 'object') {
        const r = row as Record<string, unknown>;
        const segment = r.exchangeSegment ?? r.segment;
        if (segment !== undefined && segment !== 'INX_EQ') continue;
        if (r.securityId !== undefined) ids.push(String(r.securityId));
      }
    }
  } else {
    const [header, ...lines] = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    const columns = (header ?? '').split(',').map((c) => c.trim());
    const idColumn = columns.findIndex((c) => c === 'securityId' || c === 'security_id');
    const segmentColumn = columns.findIndex((c) => c === 'exchangeSegment' || c === 'segment');
    if (idColumn < 0) throw new IngestorError('CONFIG_INVALID', `${path}: CSV needs a securityId column`);
    for (const line of lines) {
      const cells = line.split(',').map((c) => c.trim());
      if (segmentColumn >= 0 && cells[segmentColumn] !== 'INX_EQ') continue;
      const id = cells[idColumn];
      if (id) ids.push(id);
    }
  }
  for (const id of ids) {
    if (!/^\d{1,10}$/.test(id))
      throw new IngestorError('CONFIG_INVALID', `${path}: "${id}" is not a security id`);
  }
  return [...new Set(ids)];
}
