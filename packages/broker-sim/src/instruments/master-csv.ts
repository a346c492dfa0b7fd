/**
 * The instrument master as the service publishes it: a compact CSV and a detailed one that adds the
 * underlying and the ISIN (beyond-the-spec.md, "Instrument master"). A header row names the columns;
 * readers find columns by name, never by position.
 */
import type { MasterRow } from './master-rows.js';

export type MasterFile = 'compact' | 'detailed';

type Column = readonly [name: string, value: (row: MasterRow) => string];

const text = (v: string | number | undefined): string => (v === undefined ? '' : String(v));

const COMPACT_COLUMNS: readonly Column[] = [
  ['SEM_EXM_EXCH_ID', (r) => r.exchange],
  ['SEM_SEGMENT', (r) => r.segment],
  ['SEM_SMST_SECURITY_ID', (r) => text(r.securityId)],
  ['SEM_INSTRUMENT_NAME', (r) => r.instrumentName],
  ['SEM_EXPIRY_CODE', (r) => text(r.expiryCode)],
  ['SEM_TRADING_SYMBOL', (r) => r.tradingSymbol],
  ['SEM_LOT_UNITS', (r) => r.lotUnits.toFixed(1)],
  ['SEM_CUSTOM_SYMBOL', (r) => r.customSymbol],
  ['SEM_EXPIRY_DATE', (r) => r.expiryDate],
  ['SEM_STRIKE_PRICE', (r) => (r.strikePrice === undefined ? '' : r.strikePrice.toFixed(5))],
  ['SEM_OPTION_TYPE', (r) => r.optionType],
  ['SEM_TICK_SIZE', (r) => r.tickSize.toFixed(4)],
  ['SEM_EXPIRY_FLAG', (r) => r.expiryFlag],
  ['SEM_SERIES', (r) => r.series],
  ['SM_SYMBOL_NAME', (r) => r.symbolName],
];

const DETAILED_COLUMNS: readonly Column[] = [
  ...COMPACT_COLUMNS,
  ['ISIN', (r) => r.isin],
  ['UNDERLYING_SECURITY_ID', (r) => text(r.underlyingSecurityId)],
  ['UNDERLYING_SYMBOL', (r) => r.underlyingSymbol],
];

/** A field quoted only when it must be (RFC 4180): a comma, a quote or a line break inside. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function masterCsv(rows: readonly MasterRow[], file: MasterFile): string {
  const columns = file === 'compact' ? COMPACT_COLUMNS : DETAILED_COLUMNS;
  const lines = [columns.map(([name]) => name).join(',')];
  for (const row of rows) lines.push(columns.map(([, value]) => field(value(row))).join(','));
  return `${lines.join('\n')}\n`;
}
