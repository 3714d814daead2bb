#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time over its seed corpus.
#   run_fuzz.sh <fuzzer binary> <name> <seconds>
# Seeds: tests/fuzz/seeds/<name>/ in the repo, tests/regress/<name>/ (each
# replayed alone first), plus files the target's seed list names from the
# shared test data when it is present. A crash,
# leak or sanitizer report fails the run (libFuzzer exits non-zero).
# FLOE_FUZZ_SECONDS, when set, replaces <seconds> (a longer suite-wide run).
# Long run of one target (documented in docs/testing.md): run_fuzz.sh <binary> <name> 3600
set -euo pipefail
bin="$(realpath "$1")"; seconds="${FLOE_FUZZ_SECONDS:-${3:-20}}"
# Targets are <name>_fuzz; their seeds live under seeds/<name>.
name="${2%_fuzz}"
src="${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
shared="${FLOE_SHARED_DIR:-$src/../shared}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
if [ -d "$src/tests/fuzz/seeds/$name" ]; then cp -r "$src/tests/fuzz/seeds/$name/." "$work/corpus/"; fi
# Inputs that once crashed, hung or were misread (tests/regress/README.md):
# replayed one by one first, so a regression fails with its own name, then
# kept in the corpus.
if [ -d "$src/tests/regress/$name" ]; then
  for f in "$src/tests/regress/$name"/*; do
    [ -f "$f" ] || continue
    "$bin" -rss_limit_mb=2048 -timeout=30 "$f" >"$work/replay.log" 2>&1 ||
      { echo "fuzz $name: regression input $(basename "$f") fails again" >&2; tail -20 "$work/replay.log" >&2; exit 1; }
    cp "$f" "$work/corpus/regress-$(basename "$f")"
  done
fi
n=0
if [ -f "$src/tests/fuzz/seeds/$name.shared" ] && [ -d "$shared" ]; then
  while read -r glob; do
    [ -z "$glob" ] && continue
    for f in $shared/$glob; do
      # Same-named files from different folders must not overwrite each other.
      [ -f "$f" ] && cp "$f" "$work/corpus/shared-$((n += 1))-$(basename "$f")" || true
    done
  done < "$src/tests/fuzz/seeds/$name.shared"
fi
echo "fuzz $name: $(ls "$work/corpus" | wc -l) seeds, ${seconds}s"
cd "$work"
# -timeout is per input and catches hangs: 30 s, since a legal worst case of the
# corpus (40,000 one-value pages in overflow_i16_page_cnt.parquet) took 16 s in
# a sanitizer build on a loaded 2-core machine.
# A fixed seed by default, so the suite's short run explores the same inputs on
# every machine and a failure reproduces; FLOE_FUZZ_SEED=0 picks a random one
# (the long run in docs/testing.md).
seed="${FLOE_FUZZ_SEED:-1}"
"$bin" -seed="$seed" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 corpus 2>&1 | tail -60
