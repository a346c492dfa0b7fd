#!/bin/sh
# Applies the cluster DDL through one node of the cluster. The DDL is generated from the single-node
# migrations (packages/store/migrations) by packages/store's cluster-ddl, one file per migration,
# applied in order. Every statement is ON CLUSTER and idempotent (IF NOT EXISTS), so running it again
# is safe. Needs Node and the repository's `npm install` (the generator is TypeScript run by tsx).
#
#   CLICKHOUSE_HOST=ch-s1-r1 CLICKHOUSE_USER=feedpipe CLICKHOUSE_PASSWORD=... ./apply.sh
#   ./apply.sh --print      # only print the DDL, apply nothing
#
# The password is passed through the environment (CLICKHOUSE_PASSWORD, which clickhouse-client reads),
# never on the command line where `ps` would show it.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../../.." && pwd)
generator="$root/packages/store/bin/cluster-ddl.mjs"
if [ "${1:-}" = "--print" ]; then
  exec node "$generator"
fi
host=${CLICKHOUSE_HOST:-127.0.0.1}
port=${CLICKHOUSE_PORT:-9000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node "$generator" --out "$out"
for file in "$out"/[0-9][0-9][0-9]_*.sql; do
  echo "applying $(basename "$file") on $host:$port" >&2
  clickhouse-client --host "$host" --port "$port" --user "${CLICKHOUSE_USER:-default}" \
    --multiquery < "$file"
done
echo "done; the services may now start with CLICKHOUSE_URL pointing at any node or a load balancer" >&2
