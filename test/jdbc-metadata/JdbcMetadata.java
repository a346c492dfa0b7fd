/*
 * What DBeaver's navigator asks through the official ClickHouse JDBC driver: connect to the URL in
 * argument 1 (user "dbeaver", password from FEEDPIPE_API_KEY, never on the command line), then
 * DatabaseMetaData: the product version, the schemas, the tables of the market schema, the columns
 * of market.ticks with types and remarks; then one query. Prints one JSON object on stdout for
 * test/jdbc-metadata.test.ts to compare with the query API's own answers; exits 1 with the
 * driver's error on stderr otherwise.
 */
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public final class JdbcMetadata {
  private static String quote(String s) {
    if (s == null) return "null";
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  private static String list(List<String> items) {
    return "[" + String.join(",", items) + "]";
  }

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", "dbeaver");
    props.setProperty("password", System.getenv("FEEDPIPE_API_KEY"));
    // The endpoint compresses nothing (docs/sql-clients.md).
    props.setProperty("compress", "false");
    try (Connection connection = DriverManager.getConnection(args[0], props)) {
      DatabaseMetaData meta = connection.getMetaData();
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = meta.getSchemas()) {
        while (rs.next()) schemas.add(quote(rs.getString("TABLE_SCHEM")));
      }
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, "market", "%", null)) {
        while (rs.next()) {
          tables.add("{\"schema\":" + quote(rs.getString("TABLE_SCHEM")) + ",\"name\":"
              + quote(rs.getString("TABLE_NAME")) + ",\"type\":" + quote(rs.getString("TABLE_TYPE")) + "}");
        }
      }
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = meta.getColumns(null, "market", "ticks", "%")) {
        while (rs.next()) {
          columns.add("{\"name\":" + quote(rs.getString("COLUMN_NAME")) + ",\"type\":"
              + quote(rs.getString("TYPE_NAME")) + ",\"remarks\":" + quote(rs.getString("REMARKS")) + "}");
        }
      }
      long count;
      try (Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery("SELECT count() AS n FROM market.ticks")) {
        rs.next();
        count = rs.getLong(1);
      }
      System.out.println("{\"product\":" + quote(meta.getDatabaseProductName()) + ",\"version\":"
          + quote(meta.getDatabaseProductVersion()) + ",\"schemas\":" + list(schemas) + ",\"tables\":"
          + list(tables) + ",\"columns\":" + list(columns) + ",\"ticks\":" + count + "}");
    }
  }
}
