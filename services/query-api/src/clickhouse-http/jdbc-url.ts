import { MARKET_DATABASE } from '../sql/allowed-tables.js';

/**
 * The JDBC URL of the ClickHouse-protocol port (`http://host:port`), as the official ClickHouse JDBC
 * driver (DBeaver's) reads it: `jdbc:clickhouse:http://host:port/<database>`. The driver takes a
 * URL path for the database name, which is why the protocol needs the root of a port of its own.
 */
export function jdbcUrlOf(clickhouseUrl: string): string {
  return `jdbc:clickhouse:${clickhouseUrl.replace(/\/+$/, '')}/${MARKET_DATABASE}`;
}
