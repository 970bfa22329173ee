#!/bin/sh
# Create the FastMCP 4 interop peer's virtualenv from the hash-pinned lock.
# Usage: setup.sh VENV_DIR        (then: VENV_DIR/bin/python server.py)
set -eu
if [ "$#" -ne 1 ]; then
    echo "usage: $0 VENV_DIR" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
python3 -m venv "$1"
"$1/bin/pip" install --require-hashes -r "$here/requirements.lock"
