import { SERVICE_TABLES } from '@feedpipe/contracts';
/**
 * The query API's keys and scopes. `read` reaches the analytics, SQL, the live stream and the status
 * page; `admin` manages keys (implies nothing else). Trading has its own service with its own keys
 * (services/trading-gateway): a key of this API can place no order.
 */
export type Scope = 'read' | 'admin';
export const SCOPES: readonly Scope[] = ['read', 'admin'];
/** Routes without a declared scope (and unknown paths) need this one. */
export const DEFAULT_SCOPE: Scope = 'read';
/** Where this API's keys live (packages/store/migrations/004_api_tables.sql). */
export const API_KEYS_TABLE = SERVICE_TABLES.apiKeys.name;
