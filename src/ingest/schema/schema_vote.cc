#include "ingest/schema/schema_vote.h"

#include <optional>
#include <string>

#include "common/strings.h"
#include "ingest/schema/name_match.h"
#include "ingest/schema/type_compat.h"

namespace floe::ingest {

namespace {

// Types that fit into one table column, counted together.
struct TypeGroup {
  DataType widest;
  std::optional<iceberg::Type> iceberg;  // primitive groups only
  size_t votes = 0;
};

struct ColumnVotes {
  std::string name;
  std::vector<TypeGroup> groups;  // in first-seen order
};

void Vote(ColumnVotes& column, const DataType& type, int format_version) {
  std::optional<iceberg::Type> incoming;
  if (!type.is_nested()) {
    auto mapped = internal::IcebergTypeForSource(type, format_version);
    if (mapped.ok() && mapped->is_primitive()) incoming = *mapped;
  }
  for (TypeGroup& group : column.groups) {
    if (!incoming || !group.iceberg) {
      if (group.widest == type) {
        ++group.votes;
        return;
      }
      continue;
    }
    switch (internal::MatchPrimitive(*group.iceberg, *incoming)) {
      case internal::PrimitiveMatch::kSame:
      case internal::PrimitiveMatch::kCastUp: ++group.votes; return;
      case internal::PrimitiveMatch::kPromote:
        group.widest = type;
        group.iceberg = incoming;
        ++group.votes;
        return;
      case internal::PrimitiveMatch::kIncompatible: break;
    }
  }
  column.groups.push_back({type, incoming, 1});
}

}  // namespace

floe::Schema VoteNewTableSchema(const std::vector<floe::Schema>& samples, int format_version) {
  std::vector<ColumnVotes> columns;
  for (const floe::Schema& sample : samples) {
    for (const Field& field : sample) {
      ColumnVotes* column = nullptr;
      for (ColumnVotes& candidate : columns) {
        if (EqualsIgnoreAsciiCase(candidate.name, field.name)) column = &candidate;
      }
      if (column == nullptr) {
        columns.push_back({field.name, {}});
        column = &columns.back();
      }
      Vote(*column, field.type, format_version);
    }
  }
  floe::Schema voted;
  for (const ColumnVotes& column : columns) {
    const TypeGroup* winner = &column.groups.front();
    for (const TypeGroup& group : column.groups) {
      if (group.votes > winner->votes) winner = &group;
    }
    voted.push_back(MakeField(column.name, winner->widest, /*nullable=*/true));
  }
  return voted;
}

}  // namespace floe::ingest
