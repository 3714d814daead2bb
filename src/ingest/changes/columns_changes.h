// ColumnsChanges: the change conventions whose rows carry their change in
// plain columns — "cda" (Guidewire CDA: key id, ordering gwcbi___seqval_hex
// padded to 32 hex digits, operation gwcbi___operation 0/2 insert, 4 update,
// 1 delete, 3 ignored), "columns" (the key, ordering and operation columns
// and codes of [merge]) and "dms" (AWS DMS's S3 target: operation Op "I",
// "U", "D"; a full-load file without Op holds upserts; ordering by
// AR_H_CHANGE_SEQ, full-load rows without one oldest; the config parser
// fills these [merge] defaults) — merged by key, newest change wins; and
// AppendChanges ("append"): every row is appended, except rows whose
// operation column (when [merge] operation_column names one the unit has)
// holds an ignore value or an unknown code.
//
// Contract (see change_convention.h): columns are found by name, exact first
// then case-insensitive. Bind fails naming a missing key or ordering column
// (an ordering column may be missing with [merge] unordered_rows_oldest), a
// missing operation column (unless [merge] missing_operation = "upsert":
// every row is then an insert), an ordering column whose type cannot hold
// its order_kind, or an operation column whose type has no configured codes
// (operation_codes.h). With unordered_rows_oldest an update or delete
// without an ordering value is a bad row (it would lose to every row). The
// row image is the unit's row, all columns included.
#pragma once

#include <string>

#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"

namespace floe::ingest {

class ColumnsChanges final : public ChangeConvention {
 public:
  // `name` is "cda" or "columns"; `merge` says which columns and codes.
  ColumnsChanges(std::string name, MergeConfig merge) : name_(std::move(name)), merge_(std::move(merge)) {}
  const char* name() const override { return name_.c_str(); }
  bool merges() const override { return true; }
  Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const override;
  OrderingSpec table_ordering() const override { return OrderingSpec::Of(merge_); }

 private:
  std::string name_;
  MergeConfig merge_;
};

class AppendChanges final : public ChangeConvention {
 public:
  explicit AppendChanges(MergeConfig merge) : merge_(std::move(merge)) {}
  const char* name() const override { return "append"; }
  bool merges() const override { return false; }
  Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const override;
  OrderingSpec table_ordering() const override { return OrderingSpec::Of(merge_); }

 private:
  MergeConfig merge_;
};

}  // namespace floe::ingest
