#!/usr/bin/env bash
# What a feature costs an incremental commit: two pipelines over one working
# copy of the bench/pipeline export, one plain and one with $FEATURE_TOML
# (config text added after [target] namespace; change_feed.sh and
# aggregates.sh set it). Both take the full load, then ROUNDS rounds each
# append one folder per table (~10k change rows) and run `floe run --once` on
# both, the order alternating round by round; medians of wall and CPU and
# their ratio are printed as a Markdown table. Maintenance is off in both (an
# inline compaction in one round would swamp the commit).
#   FEATURE=name FEATURE_TOML='...' bench/pipeline/commit_cost.sh [S|M|L] [ROUNDS]     (defaults: M, 7)
# Env: FLOE_BIN (default build/floe, a Release build), FLOE_BENCH_DIR (default
# /tmp; shares bench/pipeline/run.sh's export cache). Needs /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:-M}"; rounds="${2:-7}"
. bench/pipeline/export.sh
feature="${FEATURE:?FEATURE names the feature}"
work="$cache/$feature"
rm -rf "$work"; mkdir -p "$work"
cp -r "$cache/export" "$work/export"
for mode in plain "$feature"; do
  mkdir -p "$work/$mode"
  cat >"$work/$mode/pipeline.toml" <<TOML
name = "bench-$mode"
[source]
format = "cda"
uri = "$work/export"
[catalog]
type = "sql"
uri = "sqlite://$work/$mode/catalog.db"
warehouse = "$work/$mode/warehouse"
[target]
namespace = "cda"
$([ "$mode" = "$feature" ] && printf '%s' "$FEATURE_TOML")
[maintenance]
enabled = false
[state]
dir = "$work/$mode/state"
TOML
  echo "full load: $mode" >&2
  "$floe" run "$work/$mode/pipeline.toml" --once >"$work/$mode/load.log" 2>&1
done
echo "load before: $(uptime)" >&2
: >"$work/rounds.tsv"
for r in $(seq "$rounds"); do
  "$floe" demo generate "$work/export" --append-round "$r" --append-folders 1 >"$work/append-$r.txt"
  order="plain $feature"; [ $((r % 2)) -eq 0 ] && order="$feature plain"
  for mode in $order; do
    /usr/bin/time -v -o "$work/time.txt" "$floe" run "$work/$mode/pipeline.toml" --once >"$work/$mode/round-$r.log" 2>&1
    printf '%s\t%s\t%s\n' "$mode" "$(time_wall "$work/time.txt")" "$(time_cpu "$work/time.txt")" >>"$work/rounds.tsv"
  done
done
echo "load after: $(uptime)" >&2
of() { awk -F'\t' -v m="$1" -v c="$2" '$1 == m {print $c}' "$work/rounds.tsv" | median; }
pw="$(of plain 2)" pc="$(of plain 3)" fw="$(of "$feature" 2)" fc="$(of "$feature" 3)"
rows="$(sed -n 's/.*, rows \([0-9]*\),.*/\1/p' "$work/append-1.txt")"
awk -v feature="$feature" -v size="$size" -v rounds="$rounds" -v rows="$rows" -v pw="$pw" -v pc="$pc" -v fw="$fw" -v fc="$fc" 'BEGIN {
  printf "| %s incremental, one folder per table (~%s change rows, 3 commits), median of %s | wall | CPU |\n", size, rows, rounds
  print "|---|---|---|"
  printf "| plain | %.0f ms | %.0f ms |\n", pw * 1000, pc * 1000
  printf "| %s | %.0f ms | %.0f ms |\n", feature, fw * 1000, fc * 1000
  printf "| %s cost | %+.1f%% | %+.1f%% |\n", feature, (fw / pw - 1) * 100, (fc / pc - 1) * 100
}'
