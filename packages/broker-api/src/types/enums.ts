/** Enumerations exactly as the spec spells them. */

export type ExchangeSegment =
  | 'NSE_EQ'
  | 'NSE_FNO'
  | 'NSE_COMM'
  | 'BSE_EQ'
  | 'BSE_FNO'
  | 'MCX_COMM'
  | 'IDX_I'
  | 'INX_EQ';

/** Segments accepted by order placement and margin calls. */
export type TradingSegment = 'NSE_EQ' | 'NSE_FNO' | 'NSE_COMM' | 'BSE_EQ' | 'BSE_FNO' | 'MCX_COMM';

/** Segments of the candle endpoints. */
export type ChartSegment = 'NSE_EQ' | 'NSE_FNO' | 'BSE_EQ' | 'BSE_FNO' | 'MCX_COMM' | 'IDX_I';

export type TransactionType = 'BUY' | 'SELL';
export type ProductType = 'CNC' | 'INTRADAY' | 'MARGIN' | 'MTF';
export type OrderType = 'LIMIT' | 'MARKET' | 'STOP_LOSS' | 'STOP_LOSS_MARKET';
export type Validity = 'DAY' | 'IOC';
export type OrderStatus = 'TRANSIT' | 'PENDING' | 'REJECTED' | 'CANCELLED' | 'TRADED';
/** Statuses of cancel-leg answers and global stocks. */
export type ExtendedOrderStatus =
  | OrderStatus
  | 'PART_TRADED'
  | 'EXPIRED'
  | 'MODIFIED'
  | 'TRIGGERED'
  | 'INACTIVE';
export type SuperOrderStatus =
  | 'TRANSIT'
  | 'PENDING'
  | 'CLOSED'
  | 'REJECTED'
  | 'CANCELLED'
  | 'PART_TRADED'
  | 'TRADED'
  | 'EXPIRED';
export type LegName = 'ENTRY_LEG' | 'TARGET_LEG' | 'STOP_LOSS_LEG';
export type OptionType = 'CALL' | 'PUT';
export type AmoTime = 'PRE_OPEN' | 'OPEN' | 'OPEN_30' | 'OPEN_60';
export type PositionType = 'LONG' | 'SHORT' | 'CLOSED';
export type HoldingExchange = 'NSE' | 'BSE' | 'MCX' | 'ALL';
export type IpFlag = 'PRIMARY' | 'SECONDARY';
export type AlertStatus = 'ACTIVE' | 'TRIGGERED' | 'EXPIRED' | 'CANCELLED';
export type KillSwitchStatus = 'ACTIVATE' | 'DEACTIVATE';
export type PnlExitStatus = 'ACTIVE' | 'INACTIVE';
export type PnlProductType = 'INTRADAY' | 'DELIVERY';
export type EdisStatus = 'SUCCESS' | 'FAILURE';
export type EdisSegment = 'EQ' | 'COMM' | 'FNO';
export type ActiveFlag = 'Active' | 'Deactive';
export type ForeverOrderFlag = 'SINGLE' | 'OCO';
