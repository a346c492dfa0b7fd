"""Drives the query API's ClickHouse endpoint with ClickHouse's own Python client (clickhouse-connect).

Reads FEEDPIPE_CH_HOST, FEEDPIPE_CH_PORT, FEEDPIPE_CH_KEY (an API key with the read scope: it is
the password, never put in a URL), FEEDPIPE_CH_SQL and FEEDPIPE_CH_ROOT_PORT (the API's ClickHouse
port, the protocol at its root); prints one JSON object: the server version and time zone the
client learnt at connect, the tables it lists, the query read into pandas (times as epoch seconds,
the dtypes), the error a refused query raised, and the catalogue as the client reads it
(system.tables, system.columns, DESCRIBE, EXPLAIN; a file() inside a catalogue query refused)
through /clickhouse and through the root of the ClickHouse port.
"""
import json
import os

import clickhouse_connect

client = clickhouse_connect.get_client(
    host=os.environ["FEEDPIPE_CH_HOST"],
    port=int(os.environ["FEEDPIPE_CH_PORT"]),
    username="notebook",
    password=os.environ["FEEDPIPE_CH_KEY"],
    proxy_path="/clickhouse",
)
tables = [row[0] for row in client.query("SHOW TABLES").result_rows]
df = client.query_df(os.environ["FEEDPIPE_CH_SQL"])
rows = []
for record in df.to_dict("records"):
    row = {}
    for name, value in record.items():
        # Naive datetimes from the client are UTC (the server's zone): compare them as epoch seconds.
        row[name] = int(value.timestamp()) if hasattr(value, "timestamp") else value.item() if hasattr(value, "item") else value
    rows.append(row)
try:
    client.query("SELECT * FROM market.api_keys")
    refused = None
except Exception as error:  # the client's DatabaseError, with ClickHouse's code
    refused = {"type": type(error).__name__, "code": getattr(error, "code", None), "message": str(error)[:300]}
catalogue_tables = [
    row[0] for row in client.query("SELECT name FROM system.tables WHERE database = 'market' ORDER BY name").result_rows
]
columns = [
    {"name": r[0], "type": r[1], "comment": r[2]}
    for r in client.query(
        "SELECT name, type, comment FROM system.columns WHERE database = 'market' AND table = 'ticks' ORDER BY position"
    ).result_rows
]
described = [row[0] for row in client.query("DESCRIBE TABLE market.ticks").result_rows]
explained = len(client.query("EXPLAIN PLAN SELECT count() FROM market.ticks").result_rows)
try:
    client.query("SELECT name FROM system.tables WHERE name = file('/etc/hostname')")
    catalogue_refused = None
except Exception as error:
    catalogue_refused = {"type": type(error).__name__, "code": getattr(error, "code", None)}
root = clickhouse_connect.get_client(
    host=os.environ["FEEDPIPE_CH_HOST"],
    port=int(os.environ["FEEDPIPE_CH_ROOT_PORT"]),
    username="notebook",
    password=os.environ["FEEDPIPE_CH_KEY"],
)
root_tables = [row[0] for row in root.query("SELECT name FROM system.tables ORDER BY name").result_rows]
print(
    json.dumps(
        {
            "version": client.server_version,
            "timezone": str(client.server_tz),
            "tables": tables,
            "dtypes": {name: str(dtype) for name, dtype in df.dtypes.items()},
            "rows": rows,
            "refused": refused,
            "catalogue": {
                "tables": catalogue_tables,
                "columns": columns,
                "described": described,
                "explained": explained,
                "refused": catalogue_refused,
                "rootTables": root_tables,
            },
        }
    )
)
