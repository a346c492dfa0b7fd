/**
 * The trading gateway's keys and scopes, apart from the query API's: `trade` places, modifies and
 * cancels orders, reads the account, the audit trail and the order updates; `admin` manages the
 * gateway's keys (implies nothing else). A notebook's read key of the query API is nothing here.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';

export type GatewayScope = 'trade' | 'admin';
export const GATEWAY_SCOPES: readonly GatewayScope[] = ['trade', 'admin'];
/** Routes without a declared scope (and unknown paths) need this one. */
export const GATEWAY_DEFAULT_SCOPE: GatewayScope = 'trade';
/** Where the gateway's keys live (packages/store/migrations/007_gateway_api_keys.sql). */
export const GATEWAY_KEYS_TABLE = SERVICE_TABLES.gatewayApiKeys.name;
