"""Drives the Python clients openapi-generator wrote from the services' OpenAPI documents.

Reads a JSON object on stdin: {"queryUrl", "queryKey", "gatewayUrl", "gatewayKey", "securityId",
"from", "to"}; the generated packages (feedpipe_query, feedpipe_gateway) are on PYTHONPATH. Every
call goes through a generated API class. Prints one JSON object: what each call returned, typed
values turned back into plain JSON, so the test can compare them with the API's own JSON answers.
"""

import io
import json
import sys

import pyarrow.parquet as pq

import feedpipe_gateway
import feedpipe_query


def query_client(url, key):
    config = feedpipe_query.Configuration(host=url)
    config.api_key["apiKey"] = key
    return feedpipe_query.ApiClient(config)


def gateway_client(url, key):
    config = feedpipe_gateway.Configuration(host=url)
    config.api_key["apiKey"] = key
    return feedpipe_gateway.ApiClient(config)


def main():
    args = json.load(sys.stdin)
    out = {}
    with query_client(args["queryUrl"], args["queryKey"]) as client:
        instruments = feedpipe_query.InstrumentsApi(client)
        # The bars operation is declared bytes first (so generated clients return a Parquet answer's
        # bytes): its JSON answer comes back as bytes too, read with json.loads.
        bars = instruments.get_bars(var_from=args["from"], to=args["to"], security_id=args["securityId"], interval="1m")
        assert isinstance(bars, (bytes, bytearray)), type(bars)
        rows = json.loads(bytes(bars))["data"]
        out["barsJson"] = {
            "types": {field: sorted({type(row[field]).__name__ for row in rows}) for field in ("time", "close", "volume", "trades")},
            "rows": rows,
        }
        # The same route in Parquet, chosen by Accept: the generated call with the raw answer.
        raw = instruments.get_bars_without_preload_content(
            var_from=args["from"],
            to=args["to"],
            security_id=args["securityId"],
            interval="1m",
            _headers={"Accept": "application/vnd.apache.parquet"},
        )
        body = raw.read()
        table = pq.read_table(io.BytesIO(body))
        out["barsParquet"] = {
            "status": raw.status,
            "contentType": raw.headers.get("content-type"),
            "columns": table.column_names,
            "close": table.column("close").to_pylist(),
            "volume": table.column("volume").to_pylist(),
            "trades": table.column("trades").to_pylist(),
        }
        # POST /v1/sql with a typed request body and a typed table back.
        sql = feedpipe_query.SqlApi(client)
        result = sql.run_sql(
            feedpipe_query.SqlRequest(
                sql="SELECT security_id, count() AS n, max(ltp) AS high FROM market.ticks "
                "WHERE security_id = {sid:UInt32} GROUP BY security_id",
                params={"sid": feedpipe_query.SqlRequestParamsValue(args["securityId"])},
            )
        )
        assert isinstance(result, feedpipe_query.SqlTable), type(result)
        out["sql"] = {
            "meta": [m.to_dict() for m in result.meta],
            # SqlRow has no fixed columns (additionalProperties): the client gives plain dicts.
            "rows": [row if isinstance(row, dict) else row.to_dict() for row in result.data],
        }
        # A refusal arrives as the typed error body.
        try:
            sql.run_sql(feedpipe_query.SqlRequest(sql="DROP TABLE market.ticks"))
            out["sqlRefused"] = None
        except feedpipe_query.ApiException as error:
            body = feedpipe_query.ErrorBody.from_json(error.body)
            out["sqlRefused"] = {"status": error.status, "code": body.error.code}
    with gateway_client(args["gatewayUrl"], args["gatewayKey"]) as client:
        orders = feedpipe_gateway.OrdersApi(client).list_orders()
        out["gatewayOrders"] = {
            "types": sorted({type(o).__name__ for o in orders}),
            "orders": [o.to_dict() for o in orders],
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
