// UpdateSchema: evolves the table schema (a new schema becomes current).
//
// Contract: changes are recorded and replayed on the current schema of each
// commit attempt, in order. New columns are optional unless added with
// AddRequiredColumn after AllowIncompatibleChanges; they and their nested
// fields get fresh ids above last-column-id. Renames keep ids. Type changes
// must be promotions (CanPromote for the table's format version). Deleting a
// column used by an identifier field, the default partition spec or the
// default sort order is refused. Names are dotted paths ("a.b"; list
// elements "l.element", map values "m.value"); a problem is InvalidArgument
// naming the column. The commit requires the schema and last-column-id it
// was built on to be unchanged, else it retries on the reloaded table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::iceberg {

class Table;

class UpdateSchema {
 public:
  explicit UpdateSchema(Table& table) : table_(table) {}

  // `parent` is "" for a top-level column, else a struct (or a list/map whose element/value is a struct).
  UpdateSchema& AddColumn(const std::string& parent, const std::string& name, const Type& type,
                          std::optional<std::string> doc = std::nullopt);
  UpdateSchema& AddColumn(const std::string& name, const Type& type) { return AddColumn("", name, type); }
  UpdateSchema& AllowIncompatibleChanges() {
    allow_incompatible_ = true;
    return *this;
  }
  UpdateSchema& AddRequiredColumn(const std::string& parent, const std::string& name, const Type& type);
  UpdateSchema& RenameColumn(const std::string& name, const std::string& new_name);
  UpdateSchema& UpdateColumn(const std::string& name, const Type& new_type);
  UpdateSchema& MakeColumnOptional(const std::string& name);
  UpdateSchema& DeleteColumn(const std::string& name);

  // The schema these changes produce on `base` (schema id not yet assigned).
  Result<Schema> Apply(const TableMetadata& base) const;
  // Commits; returns the new current schema.
  Result<Schema> Commit();

 private:
  enum class ChangeKind { kAdd, kRename, kUpdateType, kMakeOptional, kDelete };
  struct Change {
    ChangeKind kind;
    std::string name;   // the column changed, or the parent for kAdd
    std::string name2;  // kAdd: the new column's name; kRename: the new name
    Type type;          // kAdd, kUpdateType
    bool required = false;
    std::optional<std::string> doc;
  };

  Table& table_;
  bool allow_incompatible_ = false;
  std::vector<Change> changes_;
};

}  // namespace floe::iceberg
