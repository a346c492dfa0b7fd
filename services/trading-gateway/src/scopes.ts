/**
 * The trading gateway's keys and scopes, apart from the query API's: `trade` places, modifies and
 * cancels the key's own orders, reads the account, its own audit trail and order updates, and may
 * turn the kill switch on; `admin` manages the gateway's keys (implies nothing else). A key with
 * both is a supervisor: it sees and acts on every key's orders, audit rows and order updates, and
 * it alone may lift the kill switch (any trade key may stop trading; restarting it is a desk
 * decision). A notebook's read key of the query API is nothing here.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';

export type GatewayScope = 'trade' | 'admin';
export const GATEWAY_SCOPES: readonly GatewayScope[] = ['trade', 'admin'];
/** Routes without a declared scope (and unknown paths) need this one. */
export const GATEWAY_DEFAULT_SCOPE: GatewayScope = 'trade';
/** Where the gateway's keys live (packages/store/migrations/007_gateway_api_keys.sql). */
export const GATEWAY_KEYS_TABLE = SERVICE_TABLES.gatewayApiKeys.name;

/** A key with both scopes acts on every key's orders and may lift the kill switch. */
export const SUPERVISOR_SCOPES: readonly GatewayScope[] = ['trade', 'admin'];

export function isSupervisor(scopes: readonly string[]): boolean {
  return SUPERVISOR_SCOPES.every((s) => scopes.includes(s));
}
