/**
 * What the HTTP services (query API, trading gateway) share: the error envelope and its typed
 * base, the error handler, 404/405, request and process metrics, API-key auth over a service's own
 * key table and scopes, key admin routes, log redaction, strict dates, option readers, the shared
 * service configuration (HttpServiceConfig) and /docs.
 */
export { AddressGate, type AddressGateOptions } from './auth/address-gate.js';
export {
  type ApiKeyInfo,
  ApiKeyStore,
  type ApiKeyStoreOptions,
  type KeyCheck,
  type RevokedListener,
} from './auth/api-keys.js';
export {
  API_KEY_HEADER,
  type AuthLimits,
  type AuthOptions,
  installAuth,
  OPEN_SCOPE,
  type RouteScope,
} from './auth/auth-hook.js';
export { createAuthLimits } from './auth/auth-limits.js';
export { KeyAdminClient, KeyAdminError } from './auth/key-admin-client.js';
export { KEY_COMMANDS, type KeyCommandOptions, type KeyManager, runKeyCommand } from './auth/key-command.js';
export {
  ADMIN_SCOPE,
  hashSecret,
  type NewKeyMaterial,
  newKeyMaterial,
  type ParsedKey,
  parseKey,
  secretMatches,
} from './auth/key-format.js';
export { registerKeyRoutes } from './auth/key-routes.js';
export { openLocalKeyStore } from './auth/local-key-store.js';
export { KeyConcurrency, KeyRateLimiter, type RateDecision } from './auth/rate-limiter.js';
export { SecretThrottle, type SecretThrottleOptions } from './auth/secret-throttle.js';
export {
  type ErrorBody,
  type ErrorMapper,
  errorBody,
  installErrorHandler,
  toHttpError,
  validationError,
} from './error-handler.js';
export {
  badRequest,
  HTTP_ERROR_STATUS,
  HttpError,
  type HttpErrorCode,
  type HttpErrorInit,
  HttpErrorWithStatuses,
  isHttpError,
  notFound,
  type UpstreamError,
} from './http-error.js';
export {
  createHttpMetrics,
  type HttpMetrics,
  type HttpMetricsOptions,
  installHttpMetrics,
} from './http-metrics.js';
export { type HttpServerOptions, httpServerOptions } from './http-server.js';
export {
  HTTP_SERVICE_CONFIG,
  type HttpServiceConfig,
  type HttpServiceValues,
  LOG_LEVELS,
  type LogLevel,
  type ResolvedHttpServiceConfig,
  readServiceConfig,
  resolveHttpServiceConfig,
} from './http-service-config.js';
export { HTTP_SERVICE_DEPS } from './http-service-deps.js';
export { isCalendarDate, parseIsoInstant } from './iso-instant.js';
export {
  type LogSink,
  NO_ROUTE,
  REDACTED,
  type RequestLogFields,
  redactingLoggerOptions,
  redactingSink,
  redactLogText,
  serializeRequest,
} from './log-redaction.js';
export { installMethodNotAllowed, routePatternToRegExp } from './method-not-allowed.js';
export {
  type HiddenRoute,
  hiddenRoutes,
  type OpenApiDocsOptions,
  registerOpenApiDocs,
} from './openapi/docs.js';
export {
  ERROR_BODY_ID,
  ERROR_BODY_SCHEMA,
  type ErrorStatus,
  errorResponses,
  installErrorBodySchema,
} from './openapi/error-responses.js';
export {
  API_KEY_SECURITY,
  asIsSerializer,
  errorStatusesOf,
  type RouteDoc,
  routeDoc,
} from './openapi/route-doc.js';
export { DOCS_CONTENT_SECURITY_POLICY, installSecurityHeaders } from './security-headers.js';
export { type ServiceLog, serviceAppOptions } from './service-app-options.js';
