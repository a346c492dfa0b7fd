import type { FeedRecordType } from '@feedpipe/contracts';
import { MsgCode, type MsgCodeValue } from './constants.js';

export const RECORD_TYPE_BY_CODE: Readonly<Record<MsgCodeValue, FeedRecordType>> = Object.freeze({
  [MsgCode.Trade]: 'trade',
  [MsgCode.Ohlc]: 'ohlc',
  [MsgCode.MarketStatus]: 'market_status',
  [MsgCode.PrevClose]: 'prev_close',
  [MsgCode.CircuitLimit]: 'circuit_limit',
  [MsgCode.Week52]: 'week52',
  [MsgCode.Error]: 'error',
});

export const CODE_BY_RECORD_TYPE: Readonly<Record<FeedRecordType, MsgCodeValue>> = Object.freeze({
  trade: MsgCode.Trade,
  ohlc: MsgCode.Ohlc,
  market_status: MsgCode.MarketStatus,
  prev_close: MsgCode.PrevClose,
  circuit_limit: MsgCode.CircuitLimit,
  week52: MsgCode.Week52,
  error: MsgCode.Error,
});

export function isMsgCode(code: number): code is MsgCodeValue {
  return Object.hasOwn(RECORD_TYPE_BY_CODE, code);
}

export function isRecordType(type: unknown): type is FeedRecordType {
  return typeof type === 'string' && Object.hasOwn(CODE_BY_RECORD_TYPE, type);
}
