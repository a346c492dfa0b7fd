"""
Drives the simulator with the service's official Python SDK (dhanhq, installed into the project's
virtual environment by test/sdk-conformance/venv.ts, its identity prefix renamed there) and writes
one JSON line per SDK call to stdout. test/sdk-conformance.test.ts starts the simulator, runs this
file with the venv's python, and judges the lines.

Input (stdin, one JSON object): baseUrl, authUrl, feedUrl, accounts {one, two}, fixtures.
Output (stdout, JSON lines):
  {"kind":"inventory", ...}  every public SDK method, so the test can prove none went undriven;
  {"kind":"call", "method", "endpoint", "expect", "outcome", "http": [...], ...} per SDK call;
  {"kind":"done", "calls": n}.
The SDK's own prints (it announces browser logins and closed feeds) go to stderr, so stdout holds
report lines only. Every URL is the simulator's, on loopback; a proxy variable set by the test
sends anything else to a closed port.
"""

import asyncio
import base64
import hashlib
import hmac
import inspect
import json
import os
import struct
import sys
import tempfile
import time
import traceback
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, urlparse

REPORT = sys.stdout
sys.stdout = sys.stderr  # the SDK prints; keep the report stream clean

import requests  # noqa: E402  (installed with the SDK)
import websockets  # noqa: E402  (installed with the SDK)

import dhanhq as sdk  # noqa: E402
from dhanhq import DhanContext, DhanHTTP, DhanLogin, GlobalStocksFeed, dhanhq  # noqa: E402

IST = timezone(timedelta(hours=5, minutes=30))
RATE_LIMIT_RETRIES = 4


def emit(record):
    REPORT.write(json.dumps(record, default=str) + "\n")
    REPORT.flush()


def totp(secret_b32, at=None):
    """RFC 6238, SHA-1, 30 s, 6 digits: what an authenticator app shows (the SDK has no TOTP)."""
    key = base64.b32decode(secret_b32.upper() + "=" * (-len(secret_b32) % 8))
    counter = int((at if at is not None else time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    code = (struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{code:06d}"


def require_loopback(url):
    host = urlparse(url).hostname
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise SystemExit(f"drive_sdk: refusing a non-loopback URL: {url}")


class Recorder:
    """Collects the HTTP exchanges of SDK sessions (requests' public response hook)."""

    def __init__(self):
        self.exchanges = []

    def watch(self, session):
        session.hooks["response"].append(self.hook)

    def hook(self, response, *args, **kwargs):
        require_loopback(response.url)
        body = response.content or b""
        self.exchanges.append(
            {
                "method": response.request.method,
                "path": urlparse(response.url).path,
                "status": response.status_code,
                "bodyBytes": len(body),
            }
        )

    def take(self):
        out, self.exchanges = self.exchanges, []
        return out


RECORDER = Recorder()
CALLS = []


def outcome_of(result, error):
    """ok: the SDK returned success; refused: the server answered an error of the spec's shape;
    unparsed: the SDK could not read the answer; error: the SDK raised."""
    if error is not None:
        return "error"
    if isinstance(result, dict) and result.get("status") in ("success", "failure") and "remarks" in result:
        if result["status"] == "success":
            return "ok"
        remarks = result.get("remarks")
        if isinstance(remarks, dict) and remarks.get("error_code"):
            return "refused"
        return "unparsed"
    return "ok"


def call(method, endpoint, fn, expect="ok", note=None, check=None):
    """Runs one SDK call, retrying a rate-limit refusal (429 + DH-904) a bounded number of times.
    `check(data)` returns what is wrong with a successful answer's data (None when it is right)."""
    retries = 0
    started = time.monotonic()
    while True:
        result, error = None, None
        try:
            result = fn()
        except Exception as e:  # the SDK raises for DhanLogin failures
            error = f"{type(e).__name__}: {e}"
        outcome = outcome_of(result, error)
        remarks = result.get("remarks") if isinstance(result, dict) else None
        limited = outcome == "refused" and isinstance(remarks, dict) and remarks.get("error_code") == "DH-904"
        if not limited or retries >= RATE_LIMIT_RETRIES:
            break
        retries += 1
        time.sleep(1.1)
    wrong = check(data_of(result)) if check is not None and outcome == "ok" else None
    if wrong is not None:
        outcome = "wrong-data"
    record = {
        "kind": "call",
        "method": method,
        "endpoint": endpoint,
        "expect": expect,
        "outcome": outcome,
        "http": RECORDER.take(),
        "ms": round((time.monotonic() - started) * 1000),
        "retries": retries,
    }
    if note:
        record["note"] = note
    if outcome != "ok":
        record["remarks"] = wrong if wrong is not None else remarks if remarks is not None else error
    emit(record)
    CALLS.append(record)
    return result


def data_of(result):
    return result.get("data") if isinstance(result, dict) and "data" in result else result


def poll(fn, ok, seconds=10.0, step=0.3):
    """Bounded wait for a state the simulator reaches on its next matching pass."""
    deadline = time.monotonic() + seconds
    while True:
        value = fn()
        if ok(value) or time.monotonic() > deadline:
            return value
        time.sleep(step)


def tick_round(price, tick):
    return round(round(price / tick) * tick, 2)


def inventory():
    """Every public method of the SDK's REST class, its login class and its global-stocks feed."""
    def public(cls):
        return sorted(n for n, v in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_"))

    return {
        "kind": "inventory",
        "sdkVersion": getattr(sdk, "__version__", None) or version_of("dhanhq"),
        "dhanhq": public(dhanhq),
        "DhanLogin": public(DhanLogin),
        "GlobalStocksFeed": public(GlobalStocksFeed),
        "otherFeeds": sorted(n for n in ("MarketFeed", "FullDepth", "OrderUpdate") if hasattr(sdk, n)),
    }


def version_of(name):
    from importlib.metadata import version

    return version(name)


def main():
    cfg = json.load(sys.stdin)
    for url in (cfg["baseUrl"], cfg["authUrl"], cfg["feedUrl"]):
        require_loopback(url)
    # Point the SDK at the simulator through its public class attributes (no file is changed for it).
    DhanHTTP.API_BASE_URL = cfg["baseUrl"] + "/v2"
    DhanLogin.API_BASE_URL = cfg["baseUrl"] + "/v2"
    DhanLogin.AUTH_BASE_URL = cfg["authUrl"]
    GlobalStocksFeed.global_feed_wss = cfg["feedUrl"]
    os.chdir(tempfile.mkdtemp(prefix="sdk-conformance-"))  # open_browser_for_tpin writes a file here

    emit(inventory())
    token = login_and_account(cfg)
    ctx = DhanContext(cfg["accounts"]["one"]["clientId"], token)
    dhan = dhanhq(ctx)
    RECORDER.watch(ctx.get_dhan_http().session)
    run = Run(dhan, cfg["fixtures"], datetime.now(IST).date())
    for section in (
        market_data,
        orders_trades_positions,
        super_orders,
        forever_orders,
        conditional_orders,
        funds_and_statements,
        edis,
        risk_controls,
        global_stocks,
    ):
        section(run)
    feed_calls(ctx, [i["securityId"] for i in run.fx["inx"]])
    feed_refused(cfg["accounts"]["one"]["clientId"])
    emit({"kind": "done", "calls": len(CALLS)})


class Run:
    """What every section shares: the SDK object of the first account, fixtures, today in IST."""

    def __init__(self, dhan, fx, today):
        self.dhan, self.fx, self.today = dhan, fx, today
        nse = fx["nse"]
        self.sid, self.resting, self.tick, self.ltp = nse["securityId"], nse["restingBuy"], nse["tick"], nse["ltp"]


def login_and_account(cfg):
    """The auth endpoints and static IP; returns the access token the other sections use."""
    one, two, fx = cfg["accounts"]["one"], cfg["accounts"]["two"], cfg["fixtures"]
    login = DhanLogin(one["clientId"])
    grant = call(
        "DhanLogin.generate_token",
        "POST {auth_url}/app/generateAccessToken",
        lambda: login.generate_token(one["pin"], totp(one["totpSecret"])),
    )
    token = grant["accessToken"] if isinstance(grant, dict) and "accessToken" in grant else one["webToken"]
    renewed = call(
        "DhanLogin.renew_token",
        "GET /RenewToken",
        lambda: login.renew_token(one["webToken"]),
    )
    if isinstance(renewed, dict) and renewed.get("accessToken"):
        token = renewed["accessToken"]
    call("DhanLogin.user_profile", "GET /profile", lambda: login.user_profile(token))

    consent = call(
        "DhanLogin.generate_login_session",
        "POST {auth_url}/app/generate-consent",
        lambda: login.generate_login_session(one["appId"], one["appSecret"]),
    )
    token_id = browser_login(cfg["authUrl"], consent, one) if isinstance(consent, str) else "missing"
    call(
        "DhanLogin.consume_token_id",
        "GET {auth_url}/app/consumeApp-consent",
        lambda: login.consume_token_id(token_id, one["appId"], one["appSecret"]),
    )

    login_two = DhanLogin(two["clientId"])
    grant_two = call(
        "DhanLogin.generate_token",
        "POST {auth_url}/app/generateAccessToken",
        lambda: login_two.generate_token(two["pin"], totp(two["totpSecret"])),
        note="second account, which has no static IP yet",
    )
    token_two = grant_two.get("accessToken", "") if isinstance(grant_two, dict) else ""
    call(
        "DhanLogin.set_ip",
        "POST /ip/setIP",
        lambda: login_two.set_ip(token_two, fx["spareIp"], "PRIMARY"),
    )
    call(
        "DhanLogin.modify_ip",
        "PUT /ip/modifyIP",
        lambda: login_two.modify_ip(token_two, fx["spareIp2"], "PRIMARY"),
        expect="refused",
        note="spec: Static IP | set, locked | modifyIP | before modifyDate | unchanged | call not allowed in the lock period",
    )
    call("DhanLogin.get_ip", "GET /ip/getIP", lambda: login_two.get_ip(token_two))

    return token


def market_data(run):
    dhan, fx, today = run.dhan, run.fx, run.today
    nse, index = fx["nse"], fx["index"]
    securities = {"NSE_EQ": [int(nse["securityId"])], "IDX_I": [int(index["securityId"])]}
    def snapshot_of_both(d):
        got = {seg: sorted((d or {}).get("data", {}).get(seg, {})) for seg in securities}
        want = {seg: [str(i) for i in ids] for seg, ids in securities.items()}
        return None if got == want else f"instruments {got}, asked {want}"

    for method, path in (("ticker_data", "ltp"), ("ohlc_data", "ohlc"), ("quote_data", "quote")):
        time.sleep(1.05)  # quote APIs: 1 request per second
        call(
            method,
            f"POST /marketfeed/{path}",
            lambda m=method: getattr(dhan, m)(securities),
            check=snapshot_of_both,
        )

    call(
        "historical_daily_data",
        "POST /charts/historical",
        lambda: dhan.historical_daily_data(
            nse["securityId"], "NSE_EQ", "EQUITY", str(today - timedelta(days=30)), str(today)
        ),
    )
    call(
        "intraday_minute_data",
        "POST /charts/intraday",
        lambda: dhan.intraday_minute_data(
            nse["securityId"], "NSE_EQ", "EQUITY", str(today - timedelta(days=5)), str(today), interval=5
        ),
    )
    call(
        "expired_options_data",
        "POST /charts/rollingoption",
        lambda: dhan.expired_options_data(
            index["securityId"], "NSE_FNO", "OPTIDX", "WEEK", 1, "ATM", "CALL", ["open", "close", "iv"],
            str(today - timedelta(days=60)), str(today - timedelta(days=50)), interval=5,
        ),
    )
    expiries = call(
        "expiry_list",
        "POST /optionchain/expirylist",
        lambda: dhan.expiry_list(int(index["securityId"]), "IDX_I"),
    )
    expiry_dates = (data_of(expiries) or {}).get("data") or [""]
    call(
        "option_chain",
        "POST /optionchain",
        lambda: dhan.option_chain(int(index["securityId"]), "IDX_I", expiry_dates[0]),
    )


def orders_trades_positions(run):
    dhan, today = run.dhan, run.today
    sid, resting, tick = run.sid, run.resting, run.tick
    placed = call(
        "place_order",
        "POST /orders",
        lambda: dhan.place_order(sid, "NSE_EQ", "BUY", 2, "LIMIT", "INTRADAY", resting, tag="sdk-rest-1"),
    )
    order_id = (data_of(placed) or {}).get("orderId", "missing")
    poll(lambda: data_of(dhan.get_order_by_id(order_id)) or {}, lambda o: o.get("orderStatus") == "PENDING")
    RECORDER.take()
    call("get_order_by_id", "GET /orders/{order-id}", lambda: dhan.get_order_by_id(order_id))
    call(
        "get_order_by_correlationID",
        "GET /orders/external/{correlation-id}",
        lambda: dhan.get_order_by_correlationID("sdk-rest-1"),
    )
    call(
        "modify_order",
        "PUT /orders/{order-id}",
        lambda: dhan.modify_order(order_id, "LIMIT", "ENTRY_LEG", 3, tick_round(resting + tick, tick), 0, 0, "DAY"),
    )
    call("get_order_list", "GET /orders", lambda: dhan.get_order_list())
    call("cancel_order", "DELETE /orders/{order-id}", lambda: dhan.cancel_order(order_id))
    sliced = call(
        "place_slice_order",
        "POST /orders/slicing",
        lambda: dhan.place_slice_order(sid, "NSE_EQ", "BUY", 1, "LIMIT", "INTRADAY", resting),
    )
    for o in data_of(sliced) if isinstance(data_of(sliced), list) else [data_of(sliced) or {}]:
        if o.get("orderId"):
            dhan.cancel_order(o["orderId"])
    RECORDER.take()

    market = call(
        "place_order",
        "POST /orders",
        lambda: dhan.place_order(sid, "NSE_EQ", "BUY", 5, "MARKET", "INTRADAY", 0),
        note="a market order, so the account has a trade and a position",
    )
    market_id = (data_of(market) or {}).get("orderId", "missing")
    poll(lambda: data_of(dhan.get_order_by_id(market_id)) or {}, lambda o: o.get("orderStatus") == "TRADED", 20)
    RECORDER.take()
    call(
        "get_trade_book",
        "GET /trades",
        lambda: dhan.get_trade_book(),
        check=lambda d: None if any(t.get("orderId") == market_id for t in d or []) else "the day's book lacks the traded order",
    )
    call("get_trade_book", "GET /trades/{order-id}", lambda: dhan.get_trade_book(market_id))
    call(
        "get_trade_history",
        "GET /trades/{from-date}/{to-date}/{page-number}",
        lambda: dhan.get_trade_history(str(today - timedelta(days=1)), str(today), 0),
    )
    call("get_positions", "GET /positions", lambda: dhan.get_positions())
    call(
        "convert_position",
        "POST /positions/convert",
        lambda: dhan.convert_position("INTRADAY", "NSE_EQ", "LONG", sid, 2, "CNC"),
        expect="202-no-body",
    )
    call("get_holdings", "GET /holdings", lambda: dhan.get_holdings())


def super_orders(run):
    dhan, sid, resting, tick = run.dhan, run.sid, run.resting, run.tick
    target, stop = tick_round(resting * 1.1, tick), tick_round(resting * 0.97, tick)
    sup = call(
        "place_super_order",
        "POST /super/orders",
        lambda: dhan.place_super_order(sid, "NSE_EQ", "BUY", 2, "LIMIT", "INTRADAY", resting, target, stop, 0.0),
    )
    sup_id = (data_of(sup) or {}).get("orderId", "missing")
    call(
        "modify_super_order",
        "PUT /super/orders/{order-id}",
        lambda: dhan.modify_super_order(sup_id, "LIMIT", "ENTRY_LEG", 3, resting, target, stop, 0.0),
    )
    call(
        "modify_super_order",
        "PUT /super/orders/{order-id}",
        lambda: dhan.modify_super_order(sup_id, "LIMIT", "TARGET_LEG", targetPrice=tick_round(target + tick, tick)),
        note="TARGET_LEG",
    )
    call(
        "modify_super_order",
        "PUT /super/orders/{order-id}",
        lambda: dhan.modify_super_order(sup_id, "LIMIT", "STOP_LOSS_LEG", stopLossPrice=tick_round(stop - tick, tick)),
        note="STOP_LOSS_LEG",
    )
    call(
        "cancel_super_order",
        "DELETE /super/orders/{order-id}/{order-leg}",
        lambda: dhan.cancel_super_order(sup_id, "STOP_LOSS_LEG"),
        note="exit leg cancelled while the entry is pending",
        check=lambda d: None if (d or {}).get("orderStatus") == "CANCELLED" else f"orderStatus {d}",
    )
    call("get_super_order_list", "GET /super/orders", lambda: dhan.get_super_order_list())
    call(
        "cancel_super_order",
        "DELETE /super/orders/{order-id}/{order-leg}",
        lambda: dhan.cancel_super_order(sup_id, "ENTRY_LEG"),
        note="ENTRY_LEG: the whole super order",
    )


def forever_orders(run):
    dhan, sid, tick, ltp = run.dhan, run.sid, run.tick, run.ltp
    fo = call(
        "place_forever",
        "POST /forever/orders",
        lambda: dhan.place_forever(
            sid, "NSE_EQ", "SELL", "CNC", "LIMIT", 1, tick_round(ltp * 1.15, tick), tick_round(ltp * 1.14, tick)
        ),
    )
    fo_id = (data_of(fo) or {}).get("orderId", "missing")
    call(
        "modify_forever",
        "PUT /forever/orders/{order-id}",
        lambda: dhan.modify_forever(
            fo_id, "SINGLE", "LIMIT", "TARGET_LEG", 1, tick_round(ltp * 1.16, tick), tick_round(ltp * 1.15, tick), 0, "DAY"
        ),
    )
    call("get_forever", "GET /forever/orders", lambda: dhan.get_forever())
    call("cancel_forever", "DELETE /forever/orders/{order-id}", lambda: dhan.cancel_forever(fo_id))


def conditional_orders(run):
    dhan, today = run.dhan, run.today
    sid, resting, tick, ltp = run.sid, run.resting, run.tick, run.ltp
    condition = {
        "comparisonType": "PRICE_WITH_VALUE",
        "exchangeSegment": "NSE_EQ",
        "securityId": sid,
        "indicatorName": "LTP",
        "timeFrame": "DAY",
        "operator": "GREATER_THAN",
        "comparingValue": tick_round(ltp * 1.5, tick),
        "expDate": str(today + timedelta(days=30)),
        "frequency": "ONCE",
        "userNote": "sdk conformance",
    }
    leg = {
        "transactionType": "BUY",
        "exchangeSegment": "NSE_EQ",
        "productType": "CNC",
        "orderType": "LIMIT",
        "securityId": sid,
        "quantity": 1,
        "validity": "DAY",
        "price": resting,
        "discQuantity": 0,
        "triggerPrice": 0,
    }
    alert = call("place_conditional_order", "POST /alerts/orders", lambda: dhan.place_conditional_order(condition, [leg]))
    alert_id = (data_of(alert) or {}).get("alertId", "missing")
    call("get_conditional_orders", "GET /alerts/orders", lambda: dhan.get_conditional_orders())
    call("get_conditional_order", "GET /alerts/orders/{alertId}", lambda: dhan.get_conditional_order(alert_id))
    call(
        "modify_conditional_order",
        "PUT /alerts/orders/{alertId}",
        lambda: dhan.modify_conditional_order(alert_id, {**condition, "comparingValue": tick_round(ltp * 1.6, tick)}, [leg]),
    )
    call("cancel_conditional_order", "DELETE /alerts/orders/{alertId}", lambda: dhan.cancel_conditional_order(alert_id))


def funds_and_statements(run):
    dhan, today, sid, ltp = run.dhan, run.today, run.sid, run.ltp
    call("get_fund_limits", "GET /fundlimit", lambda: dhan.get_fund_limits())
    call(
        "margin_calculator",
        "POST /margincalculator",
        lambda: dhan.margin_calculator(sid, "NSE_EQ", "BUY", 10, "CNC", ltp),
    )
    scrip = {"exchangeSegment": "NSE_EQ", "transactionType": "BUY", "quantity": 10, "productType": "CNC", "securityId": sid, "price": ltp}
    call(
        "margin_calculator_multi",
        "POST /margincalculator/multi",
        lambda: dhan.margin_calculator_multi([scrip], include_position=True, include_order=True),
    )
    call(
        "ledger_report",
        "GET /ledger",
        lambda: dhan.ledger_report(str(today - timedelta(days=30)), str(today)),
    )


def edis(run):
    dhan = run.dhan
    holdings = data_of(dhan.get_holdings()) or []
    RECORDER.take()
    isin = holdings[0]["isin"] if holdings else "INE000000000"
    call("generate_tpin", "GET /edis/tpin", lambda: dhan.generate_tpin())
    call(
        "open_browser_for_tpin",
        "POST /edis/form",
        lambda: dhan.open_browser_for_tpin(isin, 1, "NSE"),
        note="the spec writes /edis/from; the simulator serves both spellings",
        check=lambda d: None if "<form" in (d or {}).get("edisFormHtml", "") else f"no form in {d}",
    )
    call("edis_inquiry", "GET /edis/inquire/{isin}", lambda: dhan.edis_inquiry(isin))
    call("edis_inquiry", "GET /edis/inquire/{isin}", lambda: dhan.edis_inquiry("ALL"), note="ALL")


def risk_controls(run):
    dhan = run.dhan
    call("set_pnl_exit", "POST /pnlExit", lambda: dhan.set_pnl_exit(50000, 20000, ["INTRADAY"]))
    call("get_pnl_exit", "GET /pnlExit", lambda: dhan.get_pnl_exit())
    call(
        "stop_pnl_exit",
        "DELETE /pnlExit",
        lambda: dhan.stop_pnl_exit(),
        expect="beyond-spec",
        note="the spec lists POST and GET /pnlExit only; the simulator serves DELETE as well",
    )
    call("exit_all_positions", "DELETE /positions", lambda: dhan.exit_all_positions(), expect="202-no-body")
    poll(
        lambda: data_of(dhan.get_positions()) or [],
        lambda ps: all(p.get("positionType") == "CLOSED" or p.get("netQty") == 0 for p in ps),
        20,
    )
    RECORDER.take()
    def status_is(value):
        return lambda d: None if (d or {}).get("killSwitchStatus") == value else f"killSwitchStatus {d}"

    call("kill_switch", "POST /killswitch", lambda: dhan.kill_switch("activate"), check=status_is("ACTIVATE"))
    call("status_kill_switch", "GET /killswitch", lambda: dhan.status_kill_switch(), check=status_is("ACTIVATE"))
    call(
        "kill_switch",
        "POST /killswitch",
        lambda: dhan.kill_switch("deactivate"),
        note="ACTIVATE -> DEACTIVATE",
        check=status_is("DEACTIVATE"),
    )


def global_stocks(run):
    dhan, fx = run.dhan, run.fx
    inx = fx["inx"]
    us_sid, us_ltp = inx[0]["securityId"], inx[0]["ltp"]
    us = call(
        "place_global_order",
        "POST /globalstocks/orders",
        lambda: dhan.place_global_order(us_sid, "BUY", "LIMIT", 1, round(us_ltp * 0.9, 2), tag="sdk-us-1"),
    )
    us_id = (data_of(us) or {}).get("orderId", "missing")
    call("get_global_order_list", "GET /globalstocks/orders", lambda: dhan.get_global_order_list())
    call("get_global_order_by_id", "GET /globalstocks/orders/{order-id}", lambda: dhan.get_global_order_by_id(us_id))
    call(
        "modify_global_order",
        "PUT /globalstocks/orders/{order-id}",
        lambda: dhan.modify_global_order(us_id, "LIMIT", "BUY", us_sid, quantity=2, price=round(us_ltp * 0.89, 2)),
    )
    call("cancel_global_order", "DELETE /globalstocks/orders/{order-id}", lambda: dhan.cancel_global_order(us_id))
    us_market = dhan.place_global_order(us_sid, "BUY", "MARKET", 1, 0)
    us_market_id = (data_of(us_market) or {}).get("orderId", "missing")
    poll(
        lambda: data_of(dhan.get_global_order_by_id(us_market_id)) or {},
        lambda o: o.get("orderStatus") == "TRADED",
        20,
    )
    RECORDER.take()
    call("get_global_trades", "GET /globalstocks/trades", lambda: dhan.get_global_trades())
    call(
        "get_global_trades_by_security",
        "GET /globalstocks/trades/{security-id}",
        lambda: dhan.get_global_trades_by_security(us_sid),
    )
    call("get_global_holdings", "GET /globalstocks/holdings", lambda: dhan.get_global_holdings())
    call(
        "global_trans_estimate",
        "POST /globalstocks/transEstimate",
        lambda: dhan.global_trans_estimate(us_sid, round(us_ltp, 2), 1, "BUY"),
    )
    call(
        "global_margin_calculator",
        "POST /globalstocks/margincalculator",
        lambda: dhan.global_margin_calculator(us_sid, round(us_ltp, 2), 1, "BUY"),
    )
    call("get_global_market_status", "GET /globalstocks/marketstatus", lambda: dhan.get_global_market_status())
    call("get_global_fund_limit", "GET /globalstocks/fundlimit", lambda: dhan.get_global_fund_limit())


def browser_login(auth_url, consent_app_id, account):
    """What the user's browser does on the consent login page: post the form, read the 302."""
    url = f"{auth_url}/login/consentApp-login?consentAppId={consent_app_id}"
    form = {"clientId": account["clientId"], "pin": account["pin"], "totp": totp(account["totpSecret"])}
    response = requests.post(url, data=form, allow_redirects=False, timeout=10)
    location = response.headers.get("location", "")
    return (parse_qs(urlparse(location).query).get("tokenId") or ["missing"])[0]


def feed_calls(ctx, security_ids):
    """GlobalStocksFeed against the simulator's feed: subscribe Trade and OHLC, read until every
    packet type the spec lists for a subscription has arrived, unsubscribe, disconnect."""
    instruments = [(GlobalStocksFeed.INX_EQ, s) for s in security_ids] + [
        (GlobalStocksFeed.INX_EQ, security_ids[0], GlobalStocksFeed.SubscribeOHLC)
    ]
    feed = GlobalStocksFeed(ctx, instruments)
    started = time.monotonic()
    seen, error = {}, None
    try:
        feed.loop.run_until_complete(feed.connect())
        wanted = {"Trade", "Previous Close", "Circuit Limit", "52 Week High Low", "OHLC"}
        deadline = time.monotonic() + 15
        while not wanted <= set(seen) and time.monotonic() < deadline:
            data = feed.loop.run_until_complete(asyncio.wait_for(feed.get_instrument_data(), 5))
            for p in data if isinstance(data, list) else [data]:
                if isinstance(p, dict):
                    seen[p["type"]] = seen.get(p["type"], 0) + 1
                    if p["type"] == "Trade" and str(p["security_id"]) not in security_ids:
                        error = f"trade for an unsubscribed id {p['security_id']}"
        missing = wanted - set(seen)
        if missing:
            error = error or f"packet types never received: {sorted(missing)}"
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    emit_feed("GlobalStocksFeed.connect+subscribe_instruments+get_instrument_data", seen, error, started)

    started, error = time.monotonic(), None
    try:
        feed.unsubscribe_symbols([(GlobalStocksFeed.INX_EQ, s) for s in security_ids])
        feed.loop.run_until_complete(asyncio.sleep(0.3))
        drained = 0
        while True:  # drain what was in flight; after that no Trade may arrive
            try:
                feed.loop.run_until_complete(asyncio.wait_for(feed.get_instrument_data(), 0.5))
                drained += 1
            except asyncio.TimeoutError:
                break
            if drained > 200:
                error = "trades keep arriving after unsubscribe"
                break
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    emit_feed("GlobalStocksFeed.unsubscribe_symbols", {"drained": drained if error is None else None}, error, started)

    started, error = time.monotonic(), None
    try:
        feed.close_connection()
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    emit_feed("GlobalStocksFeed.close_connection", {}, error, started)


def feed_refused(client_id):
    """Spec: on authentication failure the server sends an Error packet and closes the connection.
    The SDK's connect() sends its subscriptions right after the upgrade; when the close is already
    there it raises ConnectionClosed, and the Error packet still waits in the receive buffer."""
    started, error, packet = time.monotonic(), None, None
    feed = GlobalStocksFeed(DhanContext(client_id, "not-a-valid-token"), [(GlobalStocksFeed.INX_EQ, "1000001")])
    try:
        try:
            feed.loop.run_until_complete(feed.connect())
        except websockets.ConnectionClosed:
            pass
        packet = feed.loop.run_until_complete(asyncio.wait_for(feed.get_instrument_data(), 5))
        if not (isinstance(packet, dict) and packet.get("type") == "Error" and packet.get("error_code") in (808, 809)):
            error = f"expected an Error packet 808/809, got {packet}"
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    emit_feed("GlobalStocksFeed.get_instrument_data", {"errorPacket": packet}, error, started, note="wrong token")


def emit_feed(method, seen, error, started, note=None):
    record = {
        "kind": "call",
        "method": method,
        "endpoint": "WebSocket {feed_url}",
        "expect": "ok",
        "outcome": "ok" if error is None else "error",
        "http": [],
        "ms": round((time.monotonic() - started) * 1000),
        "retries": 0,
        "packets": seen,
    }
    if note:
        record["note"] = note
    if error is not None:
        record["remarks"] = error
    emit(record)
    CALLS.append(record)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:
        emit({"kind": "crash", "traceback": traceback.format_exc()})
        raise SystemExit(1)
