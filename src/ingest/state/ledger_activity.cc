// Ledger reads for `floe status`, /metrics and the dashboard, and the tables'
// recorded conditions. Each read is bounded by what it returns: the backlog
// through the partial index of units not yet committed (files_waiting),
// time windows through batches_by_commit_time, the newest batch per table
// through batches_by_table with one lookup per table.
#include "ingest/state/ledger_impl.h"

namespace floe::ingest {

namespace {

constexpr const char* kBatchColumns =
    "batch_id, tbl, committed, snapshot_id, created_at_ms, committed_at_ms, files, bytes, rows_read, "
    "inserted, "
    "updated, deleted, stale, quarantined, duration_ms, commit_ms";

BatchRecord ReadBatchRow(const LedgerStatement& row) {
  BatchRecord out;
  out.batch_id = row.Int(0);
  out.table = row.Text(1);
  out.committed = row.Int(2) != 0;
  out.snapshot_id = row.OptionalInt(3);
  out.created_at_ms = row.Int(4);
  out.committed_at_ms = row.OptionalInt(5);
  if (row.OptionalInt(6)) {
    BatchStats stats;
    int64_t* fields[] = {&stats.files,       &stats.bytes,    &stats.rows,  &stats.inserted,
                         &stats.updated,     &stats.deleted,  &stats.stale, &stats.quarantined,
                         &stats.duration_ms, &stats.commit_ms};
    for (int i = 0; i < 10; ++i) *fields[i] = row.OptionalInt(6 + i).value_or(0);
    out.stats = stats;
  }
  return out;
}

}  // namespace

void BatchStats::Add(const BatchStats& other) {
  files += other.files;
  bytes += other.bytes;
  rows += other.rows;
  inserted += other.inserted;
  updated += other.updated;
  deleted += other.deleted;
  stale += other.stale;
  quarantined += other.quarantined;
  duration_ms += other.duration_ms;
  commit_ms += other.commit_ms;
}

Result<std::map<std::string, TableBacklog>> Ledger::Backlog() {
  std::map<std::string, TableBacklog> backlog;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare(
            "SELECT tbl, state, count(*), coalesce(sum(size), 0), min(discovered_at_ms) FROM files "
            "WHERE state IN ('discovered', 'in_batch', 'quarantined', 'skipped') GROUP BY tbl, state"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      TableBacklog& table = backlog[query.Text(0)];
      const std::string state = query.Text(1);
      if (state == FileStateName(FileState::kDiscovered)) {
        table.pending_files = query.Int(2);
        table.pending_bytes = query.Int(3);
        table.oldest_pending_ms = query.Int(4);
      } else if (state == FileStateName(FileState::kInBatch)) {
        table.in_batch_files = query.Int(2);
        table.in_batch_bytes = query.Int(3);
      } else if (state == FileStateName(FileState::kQuarantined)) {
        table.quarantined_files = query.Int(2);
      } else {
        table.skipped_files = query.Int(2);
      }
    }
  });
  if (!status.ok()) return status;
  return backlog;
}

Result<std::map<std::string, BatchStats>> Ledger::CommittedSince(int64_t since_ms) {
  std::map<std::string, BatchStats> totals;
  if (impl_->schema_version < 3) return totals;  // an older floe kept no stats
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare(std::string("SELECT ") + kBatchColumns +
                       " FROM batches WHERE committed_at_ms IS NOT NULL AND committed_at_ms >= ?1"));
    query.Bind(1, since_ms);
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      BatchRecord batch = ReadBatchRow(query);
      BatchStats& sum = totals[batch.table];
      if (batch.stats) sum.Add(*batch.stats);
    }
  });
  if (!status.ok()) return status;
  return totals;
}

Result<std::map<std::string, int64_t>> Ledger::QuarantinedSince(int64_t since_ms) {
  std::map<std::string, int64_t> counts;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT tbl, count(*) FROM files WHERE state = 'quarantined' AND "
                                         "updated_at_ms >= ?1 GROUP BY tbl"));
    query.Bind(1, since_ms);
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      counts[query.Text(0)] = query.Int(1);
    }
  });
  if (!status.ok()) return status;
  return counts;
}

Result<std::vector<LedgerFile>> Ledger::NewestFiles(FileState state, int64_t limit) {
  std::vector<LedgerFile> files;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare(std::string("SELECT ") + kLedgerFileColumns +
                       " FROM files WHERE state = ?1 ORDER BY updated_at_ms DESC, uri LIMIT ?2"));
    query.Bind(1, std::string(FileStateName(state))).Bind(2, std::max<int64_t>(0, limit));
    FLOE_ASSIGN_OR_RETURN(files, impl_->QueryFiles(query));
    return Status::OK();
  });
  if (!status.ok()) return status;
  return files;
}

Result<std::map<std::string, BatchRecord>> Ledger::LastCommittedBatches() {
  std::map<std::string, BatchRecord> last;
  if (impl_->schema_version < 3) return last;
  Status status = impl_->Transaction([&]() -> Status {
    // The tables, one index step each (a loose index scan), then each one's newest committed batch.
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement tables,
        impl_->Prepare(
            "WITH RECURSIVE t(tbl) AS (SELECT min(tbl) FROM batches UNION ALL "
            "SELECT (SELECT min(tbl) FROM batches WHERE tbl > t.tbl) FROM t WHERE t.tbl IS NOT NULL) "
            "SELECT tbl FROM t WHERE tbl IS NOT NULL"));
    FLOE_ASSIGN_OR_RETURN(LedgerStatement newest,
                          impl_->Prepare(std::string("SELECT ") + kBatchColumns +
                                         " FROM batches WHERE tbl = ?1 AND committed = 1 "
                                         "ORDER BY batch_id DESC LIMIT 1"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, tables.Step());
      if (!row) return Status::OK();
      newest.Reset();
      newest.Bind(1, tables.Text(0));
      FLOE_ASSIGN_OR_RETURN(bool found, newest.Step());
      if (found) last[tables.Text(0)] = ReadBatchRow(newest);
    }
  });
  if (!status.ok()) return status;
  return last;
}

Result<std::vector<BatchRecord>> Ledger::RecentBatches(int64_t since_ms, int64_t limit) {
  std::vector<BatchRecord> batches;
  if (impl_->schema_version < 3) return batches;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare(std::string("SELECT ") + kBatchColumns +
                                         " FROM batches WHERE created_at_ms >= ?1 ORDER BY batch_id DESC "
                                         "LIMIT ?2"));
    query.Bind(1, since_ms).Bind(2, std::max<int64_t>(0, limit));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      batches.push_back(ReadBatchRow(query));
    }
  });
  if (!status.ok()) return status;
  return batches;
}

Result<std::map<std::pair<std::string, std::string>, Ledger::StreamPosition>> Ledger::StreamPositions() {
  std::map<std::pair<std::string, std::string>, StreamPosition> positions;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT stream, stream_partition, max(last_position), max(CASE WHEN state IN "
                       "('committed', 'quarantined', 'skipped') THEN last_position END) FROM files "
                       "WHERE kind = 'stream_range' GROUP BY stream, stream_partition"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      StreamPosition& position = positions[{query.Text(0), query.Text(1)}];
      position.recorded_last = UnpadLedgerPosition(query.Text(2));
      if (auto committed = query.OptionalText(3)) position.committed_last = UnpadLedgerPosition(*committed);
    }
  });
  if (!status.ok()) return status;
  return positions;
}

Status Ledger::SetTableCondition(const std::string& table, const std::string& state,
                                 const std::string& reason, int64_t now_ms) {
  return impl_->Transaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(table));
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement upsert,
        impl_->Prepare("INSERT INTO table_conditions(tbl, state, reason, since_ms, updated_at_ms) "
                       "VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT(tbl) DO UPDATE SET "
                       "since_ms = CASE WHEN table_conditions.state = excluded.state AND "
                       "table_conditions.reason = excluded.reason THEN table_conditions.since_ms "
                       "ELSE excluded.since_ms END, state = excluded.state, reason = excluded.reason, "
                       "updated_at_ms = excluded.updated_at_ms"));
    upsert.Bind(1, table).Bind(2, state).Bind(3, reason).Bind(4, now_ms);
    return upsert.Run();
  });
}

Status Ledger::ClearTableCondition(const std::string& table) {
  return impl_->Transaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(table));
    FLOE_ASSIGN_OR_RETURN(LedgerStatement remove,
                          impl_->Prepare("DELETE FROM table_conditions WHERE tbl = ?1"));
    remove.Bind(1, table);
    return remove.Run();
  });
}

Result<std::map<std::string, TableCondition>> Ledger::TableConditions() {
  std::map<std::string, TableCondition> conditions;
  if (impl_->schema_version < 3) return conditions;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT tbl, state, reason, since_ms, updated_at_ms FROM table_conditions"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      conditions[query.Text(0)] = TableCondition{query.Text(1), query.Text(2), query.Int(3), query.Int(4)};
    }
  });
  if (!status.ok()) return status;
  return conditions;
}

}  // namespace floe::ingest
