import type { ActiveFlag, IpFlag } from './enums.js';

export interface SetIpRequest {
  /** Default: the client's id. */
  svcClientId?: string;
  ip: string;
  ipFlag: IpFlag;
}

export interface IpResult {
  message: string;
  status: string;
}

export interface StaticIpSetting {
  primaryIP: string;
  secondaryIP: string;
  modifyDatePrimary: string;
  modifyDateSecondary: string;
}

export interface Profile {
  svcClientId: string;
  /** DD/MM/YYYY HH:MM */
  tokenValidity: string;
  /** Comma-separated segments. */
  activeSegment: string;
  ddpi: ActiveFlag;
  mtf: ActiveFlag;
  dataPlan: ActiveFlag;
  dataValidity: string;
}
