#!/usr/bin/env bash
# Install cgm-metrics with its test dependencies and run the whole test suite.
# On Debian-like machines it also installs what the browser tests need (Debian's chromium),
# because browser test tools cannot download their own browser offline.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --upgrade pip
# CGM_REQUIRE_NATIVE=1: the C library (CodeBLEU's engine, RUBY's tree edit distance) must
# build here; a user's install without a compiler falls back to pure Python instead.
CGM_REQUIRE_NATIVE=1 python -m pip install --quiet -e ".[test,ray,docs]"
# The codebleu package is a test peer; its declared pins no longer install, so without them.
python -m pip install --quiet --no-deps codebleu==0.7.0
# verl's reward code is a client of `cgm serve` in the tests (verl/utils/reward_score/
# sandbox_fusion, loaded unchanged); it needs only requests, verl's own dependencies (torch...)
# are not wanted: without them.
python -m pip install --quiet --no-deps verl==0.9.1

# evaluate's code_eval is a test peer; it lives on the Hub, not in evaluate's releases. The same
# module (its _compute and execute.py, before it moved to evaluate) ships in the sdist of
# datasets 1.18.4 on PyPI: unpack its metrics/code_eval folder into a cache outside the tree.
peers="${CGM_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cgm-metrics/peers}"
if [ ! -f "$peers/code_eval/code_eval.py" ]; then
    mkdir -p "$peers"
    sdist="$(mktemp -d)"
    python -m pip download --quiet --no-deps --no-binary :all: --dest "$sdist" datasets==1.18.4
    tar -xzf "$sdist"/datasets-1.18.4.tar.gz -C "$sdist" datasets-1.18.4/metrics/code_eval
    rm -rf "$peers/code_eval"
    mv "$sdist/datasets-1.18.4/metrics/code_eval" "$peers/code_eval"
    rm -rf "$sdist"
fi
# LiveCodeBench's grader (lcb_runner/evaluation at commit 28fef95, MIT) is the peer of the
# input/output judge's parity tests and benchmark; it is kept unchanged in tests/peers (see its
# NOTICE), since only the package registries are reachable.
if [ ! -f "$peers/livecodebench/lcb_runner/evaluation/testing_util.py" ]; then
    mkdir -p "$peers"
    rm -rf "$peers/livecodebench"
    cp -r tests/peers/livecodebench "$peers/livecodebench"
fi
export CGM_PEERS_DIR="$peers"

if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# WordNet 3.0 for METEOR (Debian's database, copied where nltk looks; no download at run time).
if [ ! -f /usr/share/wordnet/index.sense ] && command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        wordnet-base wordnet-sense-index >/dev/null
fi
python -m cgm_metrics.maths.classic.wordnet status >/dev/null 2>&1 \
    || python -m cgm_metrics.maths.classic.wordnet install

# Compilers and interpreters for code_eval's other languages (lang=): C++, Java with the
# javatuples library, Node.js with TypeScript, Go, Rust, PHP, Ruby, Lua with luaunit, Bash, Perl
# with Test::Deep (each language module's execution part names its Debian packages).
# Only the missing ones, by the Debian package the library names for each (`cgm modules
# --languages` lists them); the tests then require every toolchain.
toolchains="$(python -c 'from cgm_metrics.execution.languages import missing_packages as m
print(" ".join(m()))')"
if command -v apt-get >/dev/null 2>&1; then
    if [ -n "$toolchains" ]; then
        SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq
        # shellcheck disable=SC2086  # one word per package
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            $toolchains >/dev/null
    fi
    export CGM_REQUIRE_TOOLCHAINS=1
fi

# Release check: sdist and wheel build (in an isolated build environment, as on release) and
# pass twine's metadata check; tests/test_packaging.py checks the wheel's contents.
dist="$(mktemp -d)"
python -m build --outdir "$dist" . >"$dist/build.log" 2>&1 || { cat "$dist/build.log"; exit 1; }
rm "$dist/build.log"
python -m twine check --strict "$dist"/*
rm -rf "$dist"

export HF_EVALUATE_OFFLINE=1
# on Linux the execution sandbox must start: its tests fail instead of skipping when it cannot
if [ "$(uname -s)" = "Linux" ]; then export CGM_REQUIRE_SANDBOX=1; fi
# The documentation site (MkDocs + Material, mkdocs.yml): a broken link, a missing page or
# anchor fails the build. Its examples run in tests/test_docs_examples.py.
site="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
python -m ruff check src tests benchmarks metrics spaces
python -m mypy   # the library (src/), configured in setup.cfg
# The tests marked slow (whole language x program matrices, uploads at the limits through the
# browser) are skipped here unless asked for: `bash scripts/test.sh --slow` (or CGM_SLOW=1) runs
# them too; a representative part of each matrix always runs (docs/development.md).
python -m pytest -n 2 --dist loadgroup "$@"  # loadgroup: the Ray tests share one cluster
