import type { EdisSegment, EdisStatus, HoldingExchange } from './enums.js';

export interface TpinResult {
  svcClientId: string;
  edisStatus: EdisStatus;
  remarks: string;
}

export interface EdisFormRequest {
  isin: string[];
  exchange: HoldingExchange;
  segment: EdisSegment;
  bulk?: boolean;
}

/**
 * POST /edis/from: the form for one ISIN. The spec shows no body; these are the fields the
 * service's own client sends (the bulk form's, with a single ISIN and a quantity).
 */
export interface EdisSingleFormRequest {
  isin: string;
  /** Quantity to authorise; default: the whole holding. */
  qty?: number;
  exchange: HoldingExchange;
  /** Default EQ. */
  segment?: EdisSegment;
  bulk?: boolean;
}

export interface EdisFormResult {
  svcClientId: string;
  /** Escaped HTML form of the depository, to be rendered by the caller. */
  edisFormHtml: string;
}

export interface EdisInquiry {
  clientId: string;
  isin: string;
  totalQty: number;
  aprvdQty: number;
  status: EdisStatus;
  remarks: string;
}

export interface LedgerEntry {
  svcClientId: string;
  narration: string;
  voucherdate: string;
  exchange: string;
  voucherdesc: string;
  vouchernumber: string;
  debit: string;
  credit: string;
  runbal: string;
}
