/** Token grant, returned by generateAccessToken and both consume-consent calls. */
export interface TokenGrant {
  svcClientId: string;
  svcClientName: string;
  svcClientUcc: string;
  givenPowerOfAttorney: boolean;
  accessToken: string;
  /** 24 h after generation, IST, ISO style without zone. */
  expiryTime: string;
}

export interface ConsentApp {
  consentAppId: string;
  consentAppStatus: string;
  status: string;
}

export interface PartnerConsent {
  consentId: string;
  consentStatus: string;
}

/**
 * RenewToken's answer is "not shown" by the spec; the client reads the new token from
 * `accessToken` (or `token`) and the expiry from `expiryTime` when present.
 */
export interface RenewedToken {
  accessToken: string;
  expiryTime?: string;
  raw: Record<string, unknown>;
}
