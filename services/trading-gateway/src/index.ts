export { createTradingGateway, type TradingGateway, type TradingGatewayDeps } from './app.js';
export {
  type LogLevel,
  type ResolvedGatewayConfig,
  resolveGatewayConfig,
  type TradingGatewayConfig,
} from './config.js';
export { GATEWAY_ENV, type GatewayEnv, gatewayEnv } from './env.js';
export { isTradingGatewayError, TradingGatewayError, type TradingGatewayErrorCode } from './errors.js';
