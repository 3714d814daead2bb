# Sourced by the pipeline benches (run.sh, pg_ledger.sh, commit_cost.sh): the export of size
# $size (S, M, L), generated once into $cache/export
# ($FLOE_BENCH_DIR/floe-bench-<size>), the floe binary, and the helpers that
# read /usr/bin/time -v reports. Expects $size and the repository as the
# working directory.
case "$size" in
  S) rows=16000 folders=10 files_per_folder=4 ;;
  M) rows=160000 folders=32 files_per_folder=8 ;;
  L) rows=1600000 folders=320 files_per_folder=10 ;;
  *) echo "usage: $0 [S|M|L]" >&2; exit 2 ;;
esac
floe="$(realpath "${FLOE_BIN:-build/floe}")"
repeats="${FLOE_BENCH_REPEATS:-3}"
cache="${FLOE_BENCH_DIR:-/tmp}/floe-bench-$size"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# Fields of a /usr/bin/time -v report: wall seconds, user+sys seconds, peak RSS bytes.
time_wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1"; }
time_cpu() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$1"; }
time_rss() { awk -F': ' '/Maximum resident set size/ {print $2*1024}' "$1"; }

# The workload, generated once per size.
if [ ! -f "$cache/export/manifest.json" ]; then
  rm -rf "$cache"; mkdir -p "$cache"
  echo "generating the $size export in $cache/export" >&2
  nice -n 10 "$floe" demo generate "$cache/export" --seed 1 --rows "$rows" --tables 3 --folders "$folders" \
    --files-per-folder "$files_per_folder" --no-uncommitted-folder >"$cache/generate.txt"
fi
