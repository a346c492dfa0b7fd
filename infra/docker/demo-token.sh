#!/bin/sh
# Demo only. With SVC_ACCESS_TOKEN empty and the simulator's banner file present (compose profile
# `demo`), export the simulator's web-console token and run the given command. The simulator signs
# tokens with a key drawn at its start, so the token can only be read from the running simulator.
# With SVC_ACCESS_TOKEN set (production) this only runs the command.
set -eu
if [ -z "${SVC_ACCESS_TOKEN:-}" ] && [ -n "${DEMO_BANNER_FILE:-}" ]; then
  # Bounded wait: the simulator's healthcheck already waits for the banner; this covers a race.
  tries=0
  while [ "$tries" -lt 30 ] && ! grep -q 'web-console access token' "$DEMO_BANNER_FILE" 2>/dev/null; do
    tries=$((tries + 1))
    sleep 1
  done
  if grep -q 'web-console access token' "$DEMO_BANNER_FILE" 2>/dev/null; then
    SVC_ACCESS_TOKEN=$(grep -m 1 'web-console access token' "$DEMO_BANNER_FILE" | awk '{print $NF}')
    export SVC_ACCESS_TOKEN
    echo "demo-token: using the simulator's token for client ${SVC_CLIENT_ID:-?}" >&2
  fi
fi
exec "$@"
