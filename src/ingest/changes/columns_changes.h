// ColumnsChanges: the change conventions whose rows carry their change in
// plain columns — "cda" (Guidewire CDA: key id, ordering gwcbi___seqval_hex
// padded to 32 hex digits, operation gwcbi___operation 0/2 insert, 4 update,
// 1 delete, 3 ignored) and "columns" (the key, ordering and operation
// columns and codes of [merge]) — merged by key, newest change wins; and
// AppendChanges ("append"): every row is appended, except rows whose
// operation column (when [merge] operation_column names one the unit has)
// holds an ignore value.
//
// Contract (see change_convention.h): columns are found by name, exact first
// then case-insensitive. Bind fails naming a missing key, ordering or (when
// merging) operation column, an ordering column whose type cannot hold the
// [merge] order_kind, or an operation column that is not an integer. The
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

 private:
  MergeConfig merge_;
};

}  // namespace floe::ingest
