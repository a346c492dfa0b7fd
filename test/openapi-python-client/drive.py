"""Drives the query API client openapi-python-client generated (package feedpipe_query_api_client).

Reads a JSON object on stdin: {"url", "key", "securityId", "from", "to"}; the generated package is on
PYTHONPATH. Calls getBars with format=parquet and format=json (the operation is declared bytes first, so the generator
returns its File of bytes for both: Parquet read by pandas, JSON by json.loads), getBarsParquet and getBarsArrow (read
into pandas: Parquet by pandas itself, the Arrow IPC file through pyarrow), and prints one JSON object with what each
returned, for the test to compare with the API's own JSON answer.
"""

import io
import json
import sys

import pandas as pd
import pyarrow as pa

from feedpipe_query_api_client import AuthenticatedClient
from feedpipe_query_api_client.api.instruments import get_bars, get_bars_arrow, get_bars_parquet
from feedpipe_query_api_client.api.sql import run_sql_parquet
from feedpipe_query_api_client.models import GetBarsFormat, RunSqlParquetSqlDownloadRequest
from feedpipe_query_api_client.types import File


def main():
    args = json.load(sys.stdin)
    # The key goes in the x-api-key header, with no prefix (the API's apiKey scheme).
    client = AuthenticatedClient(base_url=args["url"], token=args["key"], auth_header_name="x-api-key", prefix="")
    query = {"security_id": args["securityId"], "from_": args["from"], "to": args["to"], "interval": "1m"}
    with client as c:
        bars_parquet = get_bars.sync(client=c, format_=GetBarsFormat.PARQUET, **query)
        bars_json = get_bars.sync(client=c, format_=GetBarsFormat.JSON, **query)
        # A binary answer is the generator's File: the bytes in a BytesIO payload.
        download = get_bars_parquet.sync(client=c, **query)
        arrow = get_bars_arrow.sync(client=c, **query)
        sql = run_sql_parquet.sync(
            client=c,
            body=RunSqlParquetSqlDownloadRequest(sql="SELECT security_id, count() AS n FROM market.ticks GROUP BY security_id ORDER BY security_id"),
        )
    # The main bars operation: its Parquet answer as bytes, into pandas.
    assert isinstance(bars_parquet, File), type(bars_parquet)
    bars_frame = pd.read_parquet(io.BytesIO(bars_parquet.payload.read()))
    assert isinstance(bars_json, File), type(bars_json)
    table = json.loads(bars_json.payload.read())
    assert isinstance(download, File), type(download)
    body = download.payload.read()
    assert isinstance(body, bytes), type(body)
    frame = pd.read_parquet(io.BytesIO(body))
    assert isinstance(arrow, File), type(arrow)
    arrow_frame = pa.ipc.open_file(pa.BufferReader(arrow.payload.read())).read_all().to_pandas()
    print(
        json.dumps(
            {
                "barsParquetClose": [float(v) for v in bars_frame["close"]],
                "barsParquetTimeDtype": str(bars_frame["time"].dtype),
                "jsonClose": [row["close"] for row in table["data"]],
                "parquetColumns": list(frame.columns),
                "parquetClose": [float(v) for v in frame["close"]],
                "parquetVolume": [int(v) for v in frame["volume"]],
                "parquetTimeDtype": str(frame["time"].dtype),
                "arrowClose": [float(v) for v in arrow_frame["close"]],
                "arrowVolume": [int(v) for v in arrow_frame["volume"]],
                "arrowTimeDtype": str(arrow_frame["time"].dtype),
                "sqlParquet": pd.read_parquet(io.BytesIO(sql.payload.read())).to_dict("records"),
            }
        )
    )


if __name__ == "__main__":
    main()
