#!/bin/sh
# Applies the cluster DDL in this folder, in order, through one node of the cluster. Every statement
# is ON CLUSTER and idempotent (IF NOT EXISTS), so running it again is safe.
#
#   CLICKHOUSE_HOST=ch-s1-r1 CLICKHOUSE_USER=feedpipe CLICKHOUSE_PASSWORD=... ./apply.sh
#
# The password is passed through the environment (CLICKHOUSE_PASSWORD, which clickhouse-client reads),
# never on the command line where `ps` would show it.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
host=${CLICKHOUSE_HOST:-127.0.0.1}
port=${CLICKHOUSE_PORT:-9000}
for file in "$dir"/[0-9][0-9][0-9]_*.sql; do
  echo "applying $(basename "$file") on $host:$port" >&2
  clickhouse-client --host "$host" --port "$port" --user "${CLICKHOUSE_USER:-default}" \
    --multiquery < "$file"
done
echo "done; the services may now start with CLICKHOUSE_URL pointing at any node or a load balancer" >&2
