#!/usr/bin/env bash
# What [target] change_feed = true costs an incremental commit (issue 24:
# "the feed adds <= 15% to an M incremental commit"): each commit also
# appends its row changes to <table>__changes, atomically with the data
# commit in the SQLite catalog. The rounds are commit_cost.sh's.
#   bench/pipeline/change_feed.sh [S|M|L] [ROUNDS]     (defaults: M, 7)
set -euo pipefail
FEATURE=feed FEATURE_TOML='change_feed = true' exec "$(dirname "$0")/commit_cost.sh" "$@"
