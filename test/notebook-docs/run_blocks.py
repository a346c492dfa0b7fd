"""Runs the code blocks of the docs as a reader would, and reports each as one JSON line.

stdin: {"blocks": [{"file", "line", "lang", "code"}, ...]} in document order.
Python blocks of one file share a namespace, as the cells of one notebook do; shell blocks run with
bash (errexit, pipefail) in the environment this process was given. The first failure ends the run
(later cells depend on earlier ones). After each Python block, the tables it left in the namespace
(pandas and polars data frames, pyarrow tables) are reported by name with their row count and
column types, so the test can tell "ran and returned data" from "ran".
"""

import contextlib
import io
import json
import subprocess
import sys
import time
import traceback

BLOCK_TIMEOUT_S = 240


# The report's channel; what the blocks print is captured and reported with them.
REPORT = sys.stdout


def emit(line):
    REPORT.write(json.dumps(line) + "\n")
    REPORT.flush()


def tables_of(namespace):
    """Data frames and tables left in a namespace: name -> rows and column types."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    found = {}
    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        if isinstance(value, pd.DataFrame):
            columns = {str(c): str(t) for c, t in value.dtypes.items()}
            if value.index.name is not None:
                columns[str(value.index.name)] = str(value.index.dtype)
            found[name] = {"kind": "pandas", "rows": len(value), "columns": columns}
        elif isinstance(value, pl.DataFrame):
            found[name] = {"kind": "polars", "rows": value.height, "columns": {c: str(t) for c, t in value.schema.items()}}
        elif isinstance(value, pa.Table):
            found[name] = {"kind": "pyarrow", "rows": value.num_rows, "columns": {f.name: str(f.type) for f in value.schema}}
    return found


def run_python(block, namespace):
    code = compile(block["code"], f"{block['file']}:{block['line']}", "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(code, namespace)  # noqa: S102 - running the documentation's own code is the point
    return {"tables": tables_of(namespace), "stdout": printed.getvalue()[-2000:]}


def run_shell(block):
    result = subprocess.run(
        ["bash", "-o", "errexit", "-o", "pipefail", "-o", "nounset", "-c", block["code"]],
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
    )
    if result.returncode != 0:
        raise RuntimeError(f"exit {result.returncode}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}")
    return {"stdout": result.stdout[-2000:]}


def main():
    blocks = json.load(sys.stdin)["blocks"]
    namespaces = {}
    for index, block in enumerate(blocks):
        started = time.monotonic()
        where = {"index": index, "file": block["file"], "line": block["line"], "lang": block["lang"]}
        try:
            if block["lang"] in ("python", "py"):
                detail = run_python(block, namespaces.setdefault(block["file"], {"__name__": "__main__"}))
            else:
                detail = run_shell(block)
        except BaseException:  # noqa: BLE001 - every failure of a block is reported, then the run ends
            emit({**where, "ok": False, "error": traceback.format_exc(limit=8)[-4000:]})
            emit({"done": False})
            return
        emit({**where, "ok": True, "seconds": round(time.monotonic() - started, 2), **detail})
    emit({"done": True})


if __name__ == "__main__":
    main()
