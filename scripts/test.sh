#!/usr/bin/env bash
# Installs what the tests need, builds floe twice (release, and ASan+UBSan with
# the libFuzzer targets) and runs every test under ctest.
#   FLOE_SHARED_DIR  shared test data (default: ../shared beside the repo)
#   FLOE_TEST_JOBS   parallel ctest jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="${FLOE_TEST_JOBS:-$(nproc)}"

# A throwaway PostgreSQL server for the catalog tests (stopped on exit).
pg_dir="$(mktemp -d /tmp/floe-pg-XXXXXX)"
chmod 755 "$pg_dir"
trap 'scripts/pg_test_server.sh stop "$pg_dir/pg"; rm -rf "$pg_dir"' EXIT
FLOE_TEST_PG_URI="$(scripts/pg_test_server.sh start "$pg_dir/pg")"
export FLOE_TEST_PG_URI
echo "== PostgreSQL test server: $FLOE_TEST_PG_URI"

echo "== release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOE_WERROR=ON >/dev/null
cmake --build build
(cd build && ctest --output-on-failure -j "$jobs")

echo "== sanitizer build (ASan + UBSan, clang) with fuzz targets"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON \
  -DFLOE_FUZZ=ON -DFLOE_BENCH=OFF >/dev/null
cmake --build build-asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" -LE interop)
