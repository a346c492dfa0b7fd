/**
 * QUERY_API_INSTRUMENTS_FILE: the symbols the API knows besides the ids in its tables (the status
 * page's search finds instruments by them). A JSON array of { securityId, symbol?, segment? or
 * exchangeSegment? } (or { "instruments": [...] }), or a CSV with a securityId (or security_id)
 * column and optional symbol (or tradingSymbol) and segment (or exchangeSegment) columns. Read once
 * at start; a bad file stops the start with a message naming the file and the row.
 */
import { readFileSync } from 'node:fs';
import type { StaticInstrument } from '../analytics/instrument-catalog.js';
import { QueryApiError } from '../errors.js';

/** Far more than any exchange lists: a file larger than this is a mistake, refused before parsing. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

function fail(path: string, message: string): never {
  throw new QueryApiError('CONFIG_INVALID', `QUERY_API_INSTRUMENTS_FILE ${path}: ${message}`);
}

function instrument(path: string, where: string, raw: Record<string, unknown>): StaticInstrument {
  const id = Number(raw.securityId ?? raw.security_id);
  if (!Number.isInteger(id) || id < 1 || id > 4_294_967_295)
    fail(path, `${where}: securityId must be an id from 1 to 4294967295`);
  const symbol = raw.symbol ?? raw.tradingSymbol;
  const segment = raw.segment ?? raw.exchangeSegment;
  return {
    securityId: id,
    ...(typeof symbol === 'string' && symbol.trim() !== '' ? { symbol: symbol.trim() } : {}),
    ...(typeof segment === 'string' && segment.trim() !== '' ? { segment: segment.trim() } : {}),
  };
}

function fromJson(path: string, text: string): StaticInstrument[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(path, `not JSON (${(error as Error).message})`);
  }
  const rows = Array.isArray(parsed) ? parsed : (parsed as { instruments?: unknown }).instruments;
  if (!Array.isArray(rows)) fail(path, 'expected an array of instruments or { "instruments": [...] }');
  return rows.map((row, i) => {
    if (row === null || typeof row !== 'object') fail(path, `entry ${i}: expected an object with securityId`);
    return instrument(path, `entry ${i}`, row as Record<string, unknown>);
  });
}

function fromCsv(path: string, text: string): StaticInstrument[] {
  const [header, ...lines] = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const columns = (header ?? '').split(',').map((c) => c.trim());
  if (!columns.includes('securityId') && !columns.includes('security_id'))
    fail(path, 'the CSV needs a securityId column');
  return lines.map((line, i) => {
    const cells = line.split(',').map((c) => c.trim());
    return instrument(path, `line ${i + 2}`, Object.fromEntries(columns.map((c, j) => [c, cells[j]])));
  });
}

export function readInstrumentList(path: string): StaticInstrument[] {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_FILE_BYTES) fail(path, `larger than ${MAX_FILE_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof QueryApiError) throw error;
    fail(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return path.endsWith('.csv') ? fromCsv(path, text) : fromJson(path, text);
}
