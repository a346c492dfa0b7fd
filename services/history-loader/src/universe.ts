/**
 * The universe file: which instruments to load. JSON (an array, or `{ "instruments": [...] }`) or
 * CSV with a header row. Fields per instrument:
 *   securityId      (required) the service's security id, a positive integer
 *   segment         (required) NSE_EQ, NSE_FNO, BSE_EQ, BSE_FNO, MCX_COMM or IDX_I
 *   instrument      (required) the service's instrument type, e.g. EQUITY, INDEX, FUTIDX, OPTSTK
 *   inceptionDate   YYYY-MM-DD where known: daily candles start there (else the plan's dailyFrom)
 *   underlying      security id of the underlying, for derivatives (kept for reference)
 *   expiryCode      F&O candle requests carry it (the service's expiryCode)
 *   optionChain     true: take expiry lists and option-chain snapshots of this underlying
 *   expiredOptions  true: load expired (rolling) options of this underlying
 *   fnoSegment      NSE_FNO or BSE_FNO, where this underlying's options trade (default: BSE_FNO
 *                   for BSE_EQ, else NSE_FNO)
 */
import { readFileSync } from 'node:fs';
import { parseDate } from './calendar.js';
import { LoaderError } from './errors.js';

export const CHART_SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'BSE_EQ', 'BSE_FNO', 'MCX_COMM', 'IDX_I'] as const;
export type ChartSegmentName = (typeof CHART_SEGMENTS)[number];
export type FnoSegment = 'NSE_FNO' | 'BSE_FNO';

export interface UniverseInstrument {
  securityId: number;
  segment: ChartSegmentName;
  instrument: string;
  inceptionDate?: string;
  underlying?: number;
  expiryCode?: number;
  optionChain: boolean;
  expiredOptions: boolean;
  fnoSegment: FnoSegment;
}

/** A universe row as written in a file or passed in code, before validation. */
export interface UniverseRow {
  securityId: number;
  segment: string;
  instrument: string;
  inceptionDate?: string;
  underlying?: number;
  expiryCode?: number;
  optionChain?: boolean;
  expiredOptions?: boolean;
  fnoSegment?: string;
}

/** Rows beyond this are refused: a universe is read into memory and planned at once. */
export const MAX_UNIVERSE_ROWS = 100_000;

const FIELDS = [
  'securityId',
  'segment',
  'instrument',
  'inceptionDate',
  'underlying',
  'expiryCode',
  'optionChain',
  'expiredOptions',
  'fnoSegment',
];

function bad(where: string, message: string): LoaderError {
  return new LoaderError('UNIVERSE_INVALID', `${where}: ${message}`);
}

function positiveInt(value: unknown, where: string, name: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0 || n > 0xffff_ffff) {
    throw bad(where, `${name} must be a positive integer`);
  }
  return n;
}

function flag(value: unknown, where: string, name: string): boolean {
  if (value === undefined || value === '' || value === null) return false;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw bad(where, `${name} must be true or false`);
}

/** Validates one row (from JSON or CSV) into an instrument. */
export function universeInstrument(row: unknown, where: string): UniverseInstrument {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw bad(where, 'must be an object');
  const r = row as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!FIELDS.includes(key)) throw bad(where, `unknown field "${key}" (allowed: ${FIELDS.join(', ')})`);
  }
  const securityId = positiveInt(r.securityId, where, 'securityId');
  const segment = r.segment;
  if (typeof segment !== 'string' || !(CHART_SEGMENTS as readonly string[]).includes(segment)) {
    throw bad(where, `segment must be one of ${CHART_SEGMENTS.join(', ')}`);
  }
  if (typeof r.instrument !== 'string' || !/^[A-Z_]{2,20}$/.test(r.instrument)) {
    throw bad(where, 'instrument must be an instrument type such as EQUITY or INDEX');
  }
  const out: UniverseInstrument = {
    securityId,
    segment: segment as ChartSegmentName,
    instrument: r.instrument,
    optionChain: flag(r.optionChain, where, 'optionChain'),
    expiredOptions: flag(r.expiredOptions, where, 'expiredOptions'),
    fnoSegment: segment === 'BSE_EQ' ? 'BSE_FNO' : 'NSE_FNO',
  };
  if (r.inceptionDate !== undefined && r.inceptionDate !== '') {
    if (typeof r.inceptionDate !== 'string' || parseDate(r.inceptionDate) === undefined) {
      throw bad(where, 'inceptionDate must be a real date YYYY-MM-DD');
    }
    out.inceptionDate = r.inceptionDate;
  }
  if (r.underlying !== undefined && r.underlying !== '') {
    out.underlying = positiveInt(r.underlying, where, 'underlying');
  }
  if (r.expiryCode !== undefined && r.expiryCode !== '') {
    const code = typeof r.expiryCode === 'string' ? Number(r.expiryCode) : r.expiryCode;
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 0 || code > 3) {
      throw bad(where, 'expiryCode must be 0, 1, 2 or 3');
    }
    out.expiryCode = code;
  }
  if (r.fnoSegment !== undefined && r.fnoSegment !== '') {
    if (r.fnoSegment !== 'NSE_FNO' && r.fnoSegment !== 'BSE_FNO') {
      throw bad(where, 'fnoSegment must be NSE_FNO or BSE_FNO');
    }
    out.fnoSegment = r.fnoSegment;
  }
  if (
    (out.optionChain || out.expiredOptions) &&
    segment !== 'IDX_I' &&
    segment !== 'NSE_EQ' &&
    segment !== 'BSE_EQ'
  ) {
    throw bad(
      where,
      'optionChain and expiredOptions need an index (IDX_I) or stock (NSE_EQ, BSE_EQ) underlying',
    );
  }
  return out;
}

/** Parses universe text; `format` from the file name. Duplicate (segment, securityId) rows are refused. */
export function parseUniverse(
  text: string,
  format: 'json' | 'csv',
  source = 'universe',
): UniverseInstrument[] {
  const rows = format === 'json' ? jsonRows(text, source) : csvRows(text, source);
  if (rows.length > MAX_UNIVERSE_ROWS) {
    throw bad(source, `holds ${rows.length} rows; at most ${MAX_UNIVERSE_ROWS}`);
  }
  const seen = new Set<string>();
  const out: UniverseInstrument[] = [];
  rows.forEach((row, i) => {
    const inst = universeInstrument(row, `${source} row ${i + 1}`);
    const key = `${inst.segment}|${inst.securityId}`;
    if (seen.has(key)) throw bad(`${source} row ${i + 1}`, `duplicate instrument ${key}`);
    seen.add(key);
    out.push(inst);
  });
  return out;
}

export function readUniverseFile(path: string): UniverseInstrument[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new LoaderError('UNIVERSE_INVALID', `cannot read universe file ${path}`, { cause: error });
  }
  const format = path.toLowerCase().endsWith('.csv') ? 'csv' : 'json';
  return parseUniverse(text, format, path);
}

/**
 * The `plan` object of a JSON universe file (`{ "instruments": [...], "plan": {...} }`), or
 * undefined for a CSV file, a bare array or a file without one. The library reads it, so every
 * caller that names a universe file (the CLI, `npm start`) loads what the file plans.
 */
export function readUniversePlan(path: string): unknown {
  if (path.toLowerCase().endsWith('.csv')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LoaderError('UNIVERSE_INVALID', `cannot read universe file ${path}`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return (parsed as { plan?: unknown }).plan;
}

function jsonRows(text: string, source: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LoaderError('UNIVERSE_INVALID', `${source} is not valid JSON`, { cause: error });
  }
  if (Array.isArray(parsed)) return parsed;
  const instruments = (parsed as { instruments?: unknown } | null)?.instruments;
  if (!Array.isArray(instruments)) throw bad(source, 'must be an array or { "instruments": [...] }');
  return instruments;
}

/** Plain CSV: a header row, comma separated, no quoting (no field of the format needs commas). */
function csvRows(text: string, source: string): unknown[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
  const header = lines
    .shift()
    ?.split(',')
    .map((h) => h.trim());
  if (header === undefined) throw bad(source, 'is empty');
  return lines.map((line, i) => {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== header.length) {
      throw bad(`${source} line ${i + 2}`, `has ${cells.length} fields, the header has ${header.length}`);
    }
    const row: Record<string, string> = {};
    header.forEach((name, j) => {
      const cell = cells[j] ?? '';
      if (cell !== '') row[name] = cell;
    });
    return row;
  });
}
