"""Reads the query API's real answers with pyarrow, pandas and polars, and reports the types they see.

Environment: FEEDPIPE_API, FEEDPIPE_API_KEY (sent in the x-api-key header), FEEDPIPE_SECURITY_ID
(an instrument with ticks). One JSON object on stdout: per route and format, per reader, the type
of each time column and the first row's value of it as ISO 8601 text, so the test holds every
reader to the documented convention (UTC instants; dates stay dates).
"""

import io
import json
import os
import sys
from datetime import datetime, timedelta, timezone

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import requests

API = os.environ["FEEDPIPE_API"]
SESSION = requests.Session()
SESSION.headers["x-api-key"] = os.environ["FEEDPIPE_API_KEY"]
SID = os.environ["FEEDPIPE_SECURITY_ID"]
SINCE = (datetime.now(timezone.utc) - timedelta(hours=2)).isoformat()

# Every kind of instant a query can return, and a date.
SQL = (
    "SELECT ltt, received_at, toStartOfMinute(ltt) AS minute, toDateTime(ltt, 'Asia/Kolkata') AS ist, "
    "toDate(ltt) AS day FROM market.ticks WHERE security_id = {sid:UInt32} ORDER BY received_at LIMIT 5"
)


def fetch(method, path, **kwargs):
    response = SESSION.request(method, f"{API}{path}", timeout=120, **kwargs)
    if not response.ok:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:500]}")
    return response.content


def iso(value):
    """A value as ISO 8601 text (None for a missing one)."""
    if value is None:
        return None
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def describe_arrow(table):
    row = table.slice(0, 1).to_pylist()[0] if table.num_rows else {}
    return {f.name: {"type": str(f.type), "first": iso(row.get(f.name))} for f in table.schema}


def describe_pandas(frame):
    return {str(c): {"type": str(t), "first": iso(frame[c].iloc[0]) if len(frame) else None} for c, t in frame.dtypes.items()}


def describe_polars(frame):
    return {c: {"type": str(t), "first": iso(frame[c][0]) if frame.height else None} for c, t in frame.schema.items()}


def binary_readers(fmt, body):
    """What each reader makes of one binary answer."""
    if fmt == "parquet":
        return {
            "pyarrow": describe_arrow(pq.read_table(io.BytesIO(body))),
            "pandas": describe_pandas(pd.read_parquet(io.BytesIO(body))),
            "polars": describe_polars(pl.read_parquet(io.BytesIO(body))),
        }
    if fmt == "arrow":
        return {
            "pyarrow": describe_arrow(pa.ipc.open_file(io.BytesIO(body)).read_all()),
            "pandas": describe_pandas(pd.read_feather(io.BytesIO(body))),
            "polars": describe_polars(pl.read_ipc(io.BytesIO(body))),
        }
    return {
        "pyarrow": describe_arrow(pa.ipc.open_stream(io.BytesIO(body)).read_all()),
        "polars": describe_polars(pl.read_ipc_stream(io.BytesIO(body))),
    }


def text_readers(fmt, body, time_columns):
    """What pandas and polars make of one text answer when asked to parse its time columns."""
    if fmt == "csv":
        frame = pd.read_csv(io.BytesIO(body), parse_dates=time_columns)
        polars_frame = pl.read_csv(io.BytesIO(body), try_parse_dates=True)
    else:
        rows = json.loads(body)["data"] if fmt == "json" else [json.loads(l) for l in body.splitlines() if l]
        frame = pd.DataFrame(rows)
        for column in time_columns:
            frame[column] = pd.to_datetime(frame[column], format="ISO8601")
        polars_frame = pl.DataFrame(rows)
        # Eagerly, per Series: polars infers the zone from the text itself (naive text stays naive).
        polars_frame = polars_frame.with_columns([polars_frame[c].str.to_datetime() for c in time_columns])
    return {"pandas": describe_pandas(frame), "polars": describe_polars(polars_frame)}


def main():
    report = {}
    sources = {
        "sql": lambda fmt: fetch("POST", "/v1/sql", json={"sql": SQL, "params": {"sid": int(SID)}, "format": fmt}),
        "bars": lambda fmt: fetch("GET", f"/v1/instruments/{SID}/bars", params={"from": SINCE, "interval": "1m", "format": fmt}),
        "ticks": lambda fmt: fetch("GET", f"/v1/instruments/{SID}/ticks", params={"from": SINCE, "limit": 5, "format": fmt}),
    }
    time_columns = {"sql": ["ltt", "received_at", "minute", "ist"], "bars": ["time"], "ticks": ["received_at", "ltt", "lut"]}
    for source, get in sources.items():
        for fmt in ("parquet", "arrow", "arrowstream"):
            report[f"{source}.{fmt}"] = binary_readers(fmt, get(fmt))
        for fmt in ("csv", "json", "ndjson"):
            report[f"{source}.{fmt}"] = text_readers(fmt, get(fmt), time_columns[source])
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
