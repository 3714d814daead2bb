// Pipeline bad rows (pipeline_impl.h): how a batch's bad rows reach the
// table's <table>__bad_rows exactly once although that is a second table.
//
//   1. pass 1 sets the rows aside; just before the target table's commit
//      they are recorded in the ledger with the (open) batch id;
//   2. the target table commits; the ledger marks the batch committed;
//   3. the rows are appended to the bad-rows table in one snapshot carrying
//      the batch id, then forgotten by the ledger.
//
// A crash before 2 leaves the batch open: recovery finds no commit,
// releases the batch and its bad rows (the redo finds them again). A crash
// between 2 and 3 (or a failed append) leaves them in the ledger under a
// committed batch: the next run appends them, and AppendBadRows skips a
// batch whose id the bad-rows table already carries (the append landed but
// the ledger did not forget), so no bad row is lost or written twice.
#include "ingest/bad_rows_table.h"
#include "ingest/pipeline_impl.h"

namespace floe::ingest {

Status Pipeline::Impl::RecordBadRows(int64_t batch_id, const std::vector<BadRowRecord>& rows) {
  std::vector<LedgerBadRow> entries;
  entries.reserve(rows.size());
  for (const BadRowRecord& row : rows) entries.push_back({row.uri, row.row, row.reason});
  return Ledgered(ledger->RecordBadRows(batch_id, entries));
}

void Pipeline::Impl::AppendBadRowsOf(int64_t batch_id, const std::string& source_table) {
  auto fail = [&](const Status& why) {
    Log("warning: " + source_table + ": the bad rows of batch " + std::to_string(batch_id) +
        " stay in the ledger and are written by the next run: " + why.ToString());
  };
  auto target = TargetOf(source_table);
  if (!target.ok()) return fail(target.status());
  auto rows = Ledgered(ledger->BadRows(batch_id));
  if (!rows.ok()) return fail(rows.status());
  if (rows->empty()) return;
  auto appended = AppendBadRows(*tables, *target, config.name, batch_id, *rows, NowMs());
  if (!appended.ok()) return fail(appended.status());
  Status forgotten = Ledgered(ledger->ForgetBadRows(batch_id));
  if (!forgotten.ok()) return fail(forgotten);
  Log(source_table + ": " + std::to_string(rows->size()) + (rows->size() == 1 ? " bad row" : " bad rows") +
      " of batch " + std::to_string(batch_id) + (appended->has_value() ? " written to " : " already in ") +
      BadRowsTableOf(*target).ToString());
}

Status Pipeline::Impl::AppendLeftoverBadRows() {
  FLOE_ASSIGN_OR_RETURN(auto batches, Ledgered(ledger->BatchesWithBadRows()));
  for (const auto& [batch_id, table] : batches) AppendBadRowsOf(batch_id, table);
  return Status::OK();
}

}  // namespace floe::ingest
