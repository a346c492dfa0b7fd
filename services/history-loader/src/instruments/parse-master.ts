/**
 * The published instrument list (beyond-the-spec.md, "Instrument master") read into instrument
 * rows. Columns are found by their header names, so the compact and the detailed file both read
 * (the detailed one adds the underlying) and a column added or moved later changes nothing. A row
 * that cannot be read whole (a bad id, an unknown segment, a number that is not one) is rejected
 * with a typed error naming its line and field and kept out of the rows; the rest load. A file
 * without the identifying columns is not the list at all (an HTML error page, a truncated header)
 * and fails as a whole.
 */
import { LoaderError } from '../errors.js';
import { csvRecords } from './csv-records.js';
import { type InstrumentAttributes, instrumentKey } from './instrument-row.js';

/** Why a row was left out; the label of history_loader_instrument_rows_rejected_total. */
export type RejectReason =
  | 'columns'
  | 'security_id'
  | 'segment'
  | 'symbol'
  | 'number'
  | 'expiry_date'
  | 'option_type'
  | 'duplicate'
  | 'malformed_csv';

export interface RejectedRow {
  line: number;
  reason: RejectReason;
  error: LoaderError;
}

export interface ParsedMaster {
  rows: InstrumentAttributes[];
  rejected: RejectedRow[];
  /** Rejections per reason (every one, while `rejected` keeps the first MAX_KEPT_REJECTIONS). */
  rejectedByReason: Map<RejectReason, number>;
}

/** Rejections kept with their error for the caller's log; beyond, they are only counted. */
export const MAX_KEPT_REJECTIONS = 100;

const REQUIRED = [
  'SEM_EXM_EXCH_ID',
  'SEM_SEGMENT',
  'SEM_SMST_SECURITY_ID',
  'SEM_INSTRUMENT_NAME',
  'SEM_TRADING_SYMBOL',
] as const;

const OPTIONAL = [
  'SEM_EXPIRY_CODE',
  'SEM_LOT_UNITS',
  'SEM_CUSTOM_SYMBOL',
  'SEM_EXPIRY_DATE',
  'SEM_STRIKE_PRICE',
  'SEM_OPTION_TYPE',
  'SEM_TICK_SIZE',
  'SEM_EXPIRY_FLAG',
  'SEM_SERIES',
  'SM_SYMBOL_NAME',
  'UNDERLYING_SECURITY_ID',
  'UNDERLYING_SYMBOL',
] as const;

type ColumnName = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];

/**
 * (SEM_EXM_EXCH_ID, SEM_SEGMENT) -> the exchange segment the API names. US/E is the simulator's
 * code for its global stocks (whether the real list carries INX_EQ is not shown).
 */
const SEGMENTS: Readonly<Record<string, string>> = {
  'NSE|E': 'NSE_EQ',
  'BSE|E': 'BSE_EQ',
  'NSE|D': 'NSE_FNO',
  'BSE|D': 'BSE_FNO',
  'NSE|C': 'NSE_CURRENCY',
  'BSE|C': 'BSE_CURRENCY',
  'NSE|M': 'NSE_COMM',
  'MCX|M': 'MCX_COMM',
  'NSE|I': 'IDX_I',
  'BSE|I': 'IDX_I',
  'US|E': 'INX_EQ',
};

const MAX_ID = 4_294_967_295;
const EXPIRY = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;
/** Lists write a year like 1979 or 1980 where an instrument has no expiry: read as none. */
const FIRST_REAL_EXPIRY_YEAR = 1990;

class RowProblem extends Error {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}

function numberOf(text: string, field: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  if (!Number.isFinite(n)) throw new RowProblem('number', `${field} is not a number: ${t.slice(0, 40)}`);
  return n;
}

function idOf(text: string, field: string): number | null {
  const t = text.trim();
  const n = Number(t);
  // Empty, 0 and negative ids are how lists say "none" for an underlying.
  if (t === '' || n <= 0) return null;
  if (!Number.isInteger(n) || n > MAX_ID)
    throw new RowProblem('security_id', `${field} is not an id: ${t.slice(0, 40)}`);
  return n;
}

function expiryOf(text: string): string | null {
  const t = text.trim();
  if (t === '') return null;
  const m = EXPIRY.exec(t);
  if (!m)
    throw new RowProblem('expiry_date', `SEM_EXPIRY_DATE is not YYYY-MM-DD HH:MM:SS: ${t.slice(0, 40)}`);
  if (Number(m[1]) < FIRST_REAL_EXPIRY_YEAR) return null;
  return `${m[1]}-${m[2]}-${m[3]} ${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}`;
}

type Cells = (name: ColumnName) => string;

function rowOf(cell: Cells): InstrumentAttributes {
  const exchange = cell('SEM_EXM_EXCH_ID').trim().toUpperCase();
  const segmentCode = cell('SEM_SEGMENT').trim().toUpperCase();
  const exchangeSegment = SEGMENTS[`${exchange}|${segmentCode}`];
  if (exchangeSegment === undefined)
    throw new RowProblem('segment', `unknown exchange and segment ${exchange}/${segmentCode}`.slice(0, 80));
  const securityId = idOf(cell('SEM_SMST_SECURITY_ID'), 'SEM_SMST_SECURITY_ID');
  if (securityId === null) throw new RowProblem('security_id', 'SEM_SMST_SECURITY_ID is missing');
  const tradingSymbol = cell('SEM_TRADING_SYMBOL').trim();
  const instrumentType = cell('SEM_INSTRUMENT_NAME').trim().toUpperCase();
  if (tradingSymbol === '' || instrumentType === '')
    throw new RowProblem('symbol', 'SEM_TRADING_SYMBOL and SEM_INSTRUMENT_NAME must not be empty');
  const lot = numberOf(cell('SEM_LOT_UNITS'), 'SEM_LOT_UNITS') ?? 1;
  if (!Number.isInteger(lot) || lot < 0 || lot > MAX_ID)
    throw new RowProblem('number', `SEM_LOT_UNITS is not a whole number of units: ${lot}`);
  const tick = numberOf(cell('SEM_TICK_SIZE'), 'SEM_TICK_SIZE') ?? 0;
  const expiryCode = numberOf(cell('SEM_EXPIRY_CODE'), 'SEM_EXPIRY_CODE') ?? 0;
  if (!Number.isInteger(expiryCode) || Math.abs(expiryCode) > 32_767)
    throw new RowProblem('number', `SEM_EXPIRY_CODE is not a small integer: ${expiryCode}`);
  const strike = numberOf(cell('SEM_STRIKE_PRICE'), 'SEM_STRIKE_PRICE');
  const optionType = cell('SEM_OPTION_TYPE').trim().toUpperCase() || 'XX';
  if (optionType !== 'CE' && optionType !== 'PE' && optionType !== 'XX')
    throw new RowProblem('option_type', `SEM_OPTION_TYPE must be CE, PE or XX: ${optionType.slice(0, 10)}`);
  return {
    exchangeSegment,
    securityId,
    exchange,
    instrumentType,
    tradingSymbol,
    customSymbol: cell('SEM_CUSTOM_SYMBOL').trim(),
    symbolName: cell('SM_SYMBOL_NAME').trim(),
    series: cell('SEM_SERIES').trim(),
    lotSize: lot,
    tickSize: Math.max(0, tick),
    expiryCode,
    expiryDate: expiryOf(cell('SEM_EXPIRY_DATE')),
    // A strike only means something for an option; lists write 0 or -0.01 elsewhere.
    strikePrice: optionType === 'XX' || strike === undefined || strike <= 0 ? null : strike,
    optionType,
    expiryFlag: cell('SEM_EXPIRY_FLAG').trim().toUpperCase(),
    underlyingSecurityId: idOf(cell('UNDERLYING_SECURITY_ID'), 'UNDERLYING_SECURITY_ID'),
    underlyingSymbol: cell('UNDERLYING_SYMBOL').trim(),
  };
}

export function parseMaster(text: string): ParsedMaster {
  const records = csvRecords(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const first = records.next();
  const header = first.done ? [] : first.value.fields.map((h) => h.trim().toUpperCase());
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new LoaderError(
      'MASTER_INVALID',
      `the instrument list has no ${missing.join(', ')} column (header: ${header.slice(0, 8).join(',').slice(0, 200)})`,
    );
  }
  const index = new Map<ColumnName, number>();
  for (const name of [...REQUIRED, ...OPTIONAL]) {
    const at = header.indexOf(name);
    if (at >= 0) index.set(name, at);
  }
  const parsed: ParsedMaster = { rows: [], rejected: [], rejectedByReason: new Map() };
  const seen = new Set<string>();
  const reject = (line: number, reason: RejectReason, message: string): void => {
    parsed.rejectedByReason.set(reason, (parsed.rejectedByReason.get(reason) ?? 0) + 1);
    if (parsed.rejected.length < MAX_KEPT_REJECTIONS) {
      const error = new LoaderError('INSTRUMENT_ROW_INVALID', `instrument list line ${line}: ${message}`);
      parsed.rejected.push({ line, reason, error });
    }
  };
  for (const record of records) {
    if (record.fault) {
      reject(record.line, 'malformed_csv', record.fault.replaceAll('_', ' '));
      continue;
    }
    if (record.fields.length !== header.length) {
      reject(record.line, 'columns', `${record.fields.length} fields where the header has ${header.length}`);
      continue;
    }
    try {
      const row = rowOf((name) => {
        const at = index.get(name);
        return at === undefined ? '' : (record.fields[at] ?? '');
      });
      const key = instrumentKey(row);
      if (seen.has(key)) throw new RowProblem('duplicate', `${key} is listed twice (the first row is kept)`);
      seen.add(key);
      parsed.rows.push(row);
    } catch (error) {
      if (!(error instanceof RowProblem)) throw error;
      reject(record.line, error.reason, error.message);
    }
  }
  return parsed;
}
