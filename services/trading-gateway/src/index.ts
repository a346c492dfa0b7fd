export { createTradingGateway, type TradingGateway, type TradingGatewayDeps } from './app.js';
export {
  type LogLevel,
  type ResolvedGatewayConfig,
  resolveGatewayConfig,
  type TradingGatewayConfig,
} from './config.js';
export { GATEWAY_ENV, type GatewayEnv, gatewayEnv } from './env.js';
export { isTradingGatewayError, TradingGatewayError, type TradingGatewayErrorCode } from './errors.js';
export { createGatewayMetrics, GATEWAY_METRIC_PREFIX, type GatewayMetrics } from './metrics.js';
export type { ReferenceInstrument } from './orders/instrument-reference.js';
export {
  createReceiverMetrics,
  type OrderEvent,
  type PostbackReceiver,
  type PostbackReceiverOptions,
  readOrderEvents,
  SECRET_HEADER,
  SIGNATURE_HEADER,
  signBody,
} from './postbacks/index.js';
export { GATEWAY_DEFAULT_SCOPE, GATEWAY_KEYS_TABLE, GATEWAY_SCOPES, type GatewayScope } from './scopes.js';
