"""Drives the query API's ClickHouse endpoint with ClickHouse's own Python client (clickhouse-connect).

Reads FEEDPIPE_CH_HOST, FEEDPIPE_CH_PORT, FEEDPIPE_CH_KEY (an API key with the read scope: it is
the password, never put in a URL) and FEEDPIPE_CH_SQL; prints one JSON object: the server version
and time zone the client learnt at connect, the tables it lists, the query read into pandas
(times as epoch seconds, the dtypes), and the error a refused query raised.
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
print(
    json.dumps(
        {
            "version": client.server_version,
            "timezone": str(client.server_tz),
            "tables": tables,
            "dtypes": {name: str(dtype) for name, dtype in df.dtypes.items()},
            "rows": rows,
            "refused": refused,
        }
    )
)
