// Public surface of @feedpipe/credentials: the access token of an account for every process that
// talks to the service (configuration, the component, its sources and the shared-renewal files).

export {
  CREDENTIALS_ENV,
  type CredentialsConfig,
  credentialsConfigFromEnv,
  TOKEN_SOURCES,
  type TokenSourceKind,
} from './config.js';
export { type CreateCredentialsDeps, issuerFor, startCredentials } from './create-credentials.js';
export { Credentials, type CredentialsOptions, type CredentialsStatus } from './credentials.js';
export { CredentialsError, type CredentialsErrorCode, isCredentialsError } from './errors.js';
export { nextWarningAt, renewAt, retryDelay } from './renewal-plan.js';
export { type Env, readSecret, readSecretFile } from './secret-value.js';
export { Lease } from './share/lease.js';
export { FileRateSlots } from './share/rate-slots.js';
export { type LeaseRecord, type PublishedToken, SharedFiles, tokenHash } from './share/shared-files.js';
export { SharedRenewal } from './share/shared-renewal.js';
export { FileIssuer } from './sources/file-issuer.js';
export type { IssuedToken, RenewReason, TokenIssuer } from './sources/issuer.js';
export { StaticIssuer } from './sources/static-issuer.js';
export { TotpIssuer, type TotpIssuerOptions } from './sources/totp-issuer.js';
export { codeTime, MIN_LEFT_MS, TOTP_STEP_MS } from './sources/totp-timing.js';
export { WebIssuer } from './sources/web-issuer.js';
export { TOKEN_METRIC_NAMES } from './token-metrics.js';
