#!/usr/bin/env bash
# Install cgm-metrics with its test dependencies and run the whole test suite.
# On Debian-like machines it also installs what the browser tests need (Debian's chromium),
# because browser test tools cannot download their own browser offline.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[test]"

if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

export HF_EVALUATE_OFFLINE=1
python -m ruff check src tests benchmarks metrics spaces
python -m pytest -n 2 "$@"
