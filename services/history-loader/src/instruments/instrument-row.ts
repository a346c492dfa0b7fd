/**
 * One version of an instrument as market.instruments stores it (migration 011), and how two
 * versions are compared: every attribute of the list, none of the bookkeeping (valid_from,
 * valid_to, loaded_at).
 */

export interface InstrumentAttributes {
  exchangeSegment: string;
  securityId: number;
  exchange: string;
  instrumentType: string;
  tradingSymbol: string;
  customSymbol: string;
  symbolName: string;
  series: string;
  lotSize: number;
  tickSize: number;
  expiryCode: number;
  /** `YYYY-MM-DD HH:MM:SS` in IST, or null. */
  expiryDate: string | null;
  strikePrice: number | null;
  optionType: string;
  expiryFlag: string;
  underlyingSecurityId: number | null;
  underlyingSymbol: string;
}

/** A stored version: the attributes and the day it became valid. */
export interface InstrumentVersion extends InstrumentAttributes {
  /** `YYYY-MM-DD`. */
  validFrom: string;
}

/** The row's identity in the list: one security id per segment. */
export function instrumentKey(row: Pick<InstrumentAttributes, 'exchangeSegment' | 'securityId'>): string {
  return `${row.exchangeSegment}|${row.securityId}`;
}

/** Attributes in column order, so two versions compare as one string. */
export function attributesText(row: InstrumentAttributes): string {
  return JSON.stringify([
    row.exchange,
    row.instrumentType,
    row.tradingSymbol,
    row.customSymbol,
    row.symbolName,
    row.series,
    row.lotSize,
    row.tickSize,
    row.expiryCode,
    row.expiryDate,
    row.strikePrice,
    row.optionType,
    row.expiryFlag,
    row.underlyingSecurityId,
    row.underlyingSymbol,
  ]);
}
