#!/usr/bin/env bash
# What an [[aggregates]] entry with 3 measures costs an incremental commit
# (issue 24: "aggregates with 3 measures <= 20%"): cc_claim grouped by status
# and a 1-day window of createtime, with count(*), sum(totalincurred) and
# avg(deductible), kept from each commit's changes. The rounds are
# commit_cost.sh's.
#   bench/pipeline/aggregates.sh [S|M|L] [ROUNDS]     (defaults: M, 7)
set -euo pipefail
FEATURE=aggregate FEATURE_TOML='
[[aggregates]]
name = "claims_by_status_1d"
table = "cc_claim"
group_by = ["status", "window(createtime, '"'"'1 day'"'"')"]
measures = ["count(*)", "sum(totalincurred)", "avg(deductible)"]
' exec "$(dirname "$0")/commit_cost.sh" "$@"
