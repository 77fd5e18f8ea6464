#!/usr/bin/env bash
# Lints the OpenAPI document bplaced serves with @redocly/cli (the version
# tools/install-deps.sh installs under tools/node) and the ruleset of
# api/openapi/redocly.yaml. Exit 0 when it passes; redocly's exit status
# (and its findings) otherwise.
# Usage: tools/lint-openapi.sh BPLACED OUTPUT.json   (ctest openapi_lint)
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BPLACED OUTPUT.json" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
redocly=$root/tools/node/node_modules/.bin/redocly
if [ ! -x "$redocly" ]; then
  echo "lint-openapi: $redocly is missing: run tools/install-deps.sh" >&2
  exit 1
fi
timeout 60 "$1" --print-openapi > "$2"
# No telemetry, no update check: CI machines and login nodes may be offline.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
timeout 300 "$redocly" lint --config "$root/api/openapi/redocly.yaml" "$2"
