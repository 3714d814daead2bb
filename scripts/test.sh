#!/usr/bin/env bash
# Installs what the tests need, builds floe twice and runs every test under
# ctest: the release build runs the interop tests (the binary users run, read by
# independent readers), the ASan+UBSan build (clang) runs the unit tests and the
# libFuzzer targets. Each test is compiled once: compiling the unit tests in the
# release tree as well took about a third of its build on CI's two cores.
#   FLOE_FUZZ_SECONDS  seconds per fuzz target (default 20; docs/testing.md)
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

# Free disk before and after the builds: CI's disk once ran out mid-link.
disk_free() { df -h --output=avail . | tail -n 1 | tr -d ' '; }
echo "== release build ($(disk_free) free on disk)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOE_WERROR=ON -DFLOE_UNIT_TESTS=OFF >/dev/null
cmake --build build

# The sanitizer build compiles while the release tests run, at idle CPU
# priority: many interop tests wait on servers, brokers and child processes,
# and the compiler takes only the CPU they leave, so the tests see no
# contention and the suite is several minutes shorter on 2 cores.
echo "== release tests (the sanitizer build compiles meanwhile at idle priority)"
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON \
  -DFLOE_SHARED_LAYERS=ON -DFLOE_FUZZ=ON -DFLOE_BENCH=OFF -DFLOE_INTEROP_TESTS=OFF >/dev/null
idle=()
if chrt --idle 0 true 2>/dev/null; then idle=(chrt --idle 0); fi
asan_log="$pg_dir/asan-build.log"
"${idle[@]}" nice -n 19 cmake --build build-asan >"$asan_log" 2>&1 &
asan_build=$!
release_status=0
(cd build && ctest --output-on-failure -j "$jobs") || release_status=$?
if [ "$release_status" -ne 0 ]; then
  kill "$asan_build" 2>/dev/null || true
  wait "$asan_build" 2>/dev/null || true
  echo "== release tests failed (exit $release_status)"
  exit "$release_status"
fi

echo "== unit tests and fuzz targets under the sanitizers (ASan + UBSan, clang)"
if ! wait "$asan_build"; then
  tail -n 80 "$asan_log"
  echo "== sanitizer build failed (full log above, last 80 lines)"
  exit 1
fi
tail -n 1 "$asan_log"
echo "== both builds done ($(disk_free) free on disk)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs")
