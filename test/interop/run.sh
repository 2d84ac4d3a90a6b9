#!/usr/bin/env bash
# Interop check: the Go recorder writes recordings of every ghost message
# type, from golden CDR vectors of independent implementations (the shared
# set, and ROS 2's own for the types it lacks), and the TypeScript MCAP and
# ROS 2 CDR libraries must read back exactly the values Go wrote.
# Run from anywhere; needs go, node and npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if ! log="$(cd "$repo" && GHOST_INTEROP_DIR="$out" go test -count=1 -run '^TestInteropRecording$' -v ./pkg/bag/ 2>&1)"; then
	echo "$log" >&2
	exit 1
fi
if [ ! -f "$out/expected.json" ]; then
	echo "interop: the Go side wrote no fixture (is shared/golden missing?)" >&2
	exit 1
fi
node "$here/check.mjs" "$out"
