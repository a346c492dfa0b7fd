/** Field groups that several of the spec's order, trade and position records carry alike. */
import type { OptionType } from './enums.js';

/** When the record was made, last changed and seen by the exchange, as the service writes them. */
export interface RecordTimes {
  createTime: string;
  updateTime: string;
  exchangeTime: string;
}

/** A derivative contract's terms; absent on cash-segment records. */
export interface DerivativeFields {
  drvExpiryDate?: string;
  drvOptionType?: OptionType;
  drvStrikePrice?: number;
}
