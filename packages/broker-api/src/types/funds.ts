import type {
  KillSwitchStatus,
  PnlExitStatus,
  PnlProductType,
  ProductType,
  TradingSegment,
  TransactionType,
} from './enums.js';

export interface FundLimit {
  svcClientId: string;
  /** Spelling exact, as the service sends it. */
  availabelBalance: number;
  sodLimit: number;
  collateralAmount: number;
  /** Spelling exact, as the service sends it. */
  receiveableAmount: number;
  utilizedAmount: number;
  blockedPayoutAmount: number;
  withdrawableBalance: number;
}

export interface MarginRequest {
  svcClientId?: string;
  exchangeSegment: TradingSegment;
  transactionType: TransactionType;
  quantity: number;
  productType: ProductType;
  securityId: string;
  price?: number;
  triggerPrice?: number;
}

export interface MarginResult {
  totalMargin: number;
  spanMargin: number;
  exposureMargin: number;
  availableBalance: number;
  variableMargin: number;
  insufficientBalance: number;
  brokerage: number;
  leverage: string;
}

export type MarginScrip = Omit<MarginRequest, 'svcClientId'>;

export interface MultiMarginRequest {
  svcClientId?: string;
  /** 'true' / 'false', default 'false'. */
  includePosition?: 'true' | 'false';
  includeOrder?: 'true' | 'false';
  scripList: MarginScrip[];
}

export interface MultiMarginResult {
  clientId: string;
  totalMargin: number;
  spanMargin: number;
  exposure: number;
  equityMargin: number;
  foMargin: number;
  commodity: number;
  currency: number;
}

export interface PnlExitRequest {
  svcClientId?: string;
  profitValue?: number;
  lossValue?: number;
  productType?: PnlProductType[];
  enableKillSwitch?: boolean;
}

export interface PnlExitResult {
  pnlExitStatus: PnlExitStatus;
  message: string;
}

export interface PnlExitConfig {
  pnlExitStatus: PnlExitStatus;
  profit: number;
  loss: number;
  enableKillSwitch: boolean;
  productType: PnlProductType | PnlProductType[];
}

export interface KillSwitchResult {
  svcClientId?: string;
  killSwitchStatus: KillSwitchStatus | string;
}
