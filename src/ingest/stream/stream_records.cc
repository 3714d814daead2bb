#include "ingest/stream/stream_records.h"

#include <algorithm>
#include <map>
#include <utility>

#include "columnar/column_rows.h"
#include "common/base64.h"
#include "ingest/schema/column_cast.h"

namespace floe::ingest {

namespace {

bool IsInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

int IntegerWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32: return 4;
    default: return 8;
  }
}

// The type both `older` and `newer` values fit, or nullopt: structs by
// member name (older members first, new ones after), integers and floats
// widened, anything else only when equal.
std::optional<DataType> UnionType(const DataType& older, const DataType& newer) {
  if (older == newer) return older;
  if (IsInteger(older.id) && IsInteger(newer.id)) {
    return IntegerWidth(older.id) >= IntegerWidth(newer.id) ? older : newer;
  }
  if ((older.id == TypeId::kFloat32 || older.id == TypeId::kFloat64) &&
      (newer.id == TypeId::kFloat32 || newer.id == TypeId::kFloat64)) {
    return Float64();
  }
  if (older.id == TypeId::kStruct && newer.id == TypeId::kStruct) {
    std::vector<Field> members = older.children;
    for (const Field& field : newer.children) {
      auto it =
          std::find_if(members.begin(), members.end(), [&](const Field& f) { return f.name == field.name; });
      if (it == members.end()) {
        Field added = field;
        added.nullable = true;
        members.push_back(std::move(added));
        continue;
      }
      auto joined = UnionType(it->type, field.type);
      if (!joined) return std::nullopt;
      it->type = *joined;
      it->nullable = it->nullable || field.nullable;
    }
    for (Field& member : members) {
      const bool in_newer = std::any_of(newer.children.begin(), newer.children.end(),
                                        [&](const Field& f) { return f.name == member.name; });
      if (!in_newer) member.nullable = true;
    }
    return Struct(std::move(members));
  }
  if (older.id == TypeId::kList && newer.id == TypeId::kList) {
    auto element = UnionType(older.children[0].type, newer.children[0].type);
    if (!element) return std::nullopt;
    Field field = older.children[0];
    field.type = *element;
    field.nullable = true;
    return List(std::move(field));
  }
  return std::nullopt;
}

Column NullColumn(const DataType& type, int64_t rows) {
  Column column = MakeEmptyColumn(type);
  for (int64_t row = 0; row < rows; ++row) {
    if (type.id == TypeId::kStruct) {
      for (size_t i = 0; i < type.children.size(); ++i) {
        column.children[i] = NullColumn(type.children[i].type, rows);
      }
      column.validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
      column.length = rows;
      column.null_count = rows;
      return column;
    }
    column.AppendNull();
  }
  return column;
}

// `column` as `type` (which UnionType built from the column's own type).
Result<Column> ConformColumn(Column column, const DataType& type, const std::string& path) {
  if (column.type == type) return column;
  if (type.id == TypeId::kStruct && column.type.id == TypeId::kStruct) {
    Column out = std::move(column);
    std::vector<Column> children;
    for (const Field& member : type.children) {
      int found = -1;
      for (size_t i = 0; i < out.type.children.size(); ++i) {
        if (out.type.children[i].name == member.name) found = static_cast<int>(i);
      }
      if (found < 0) {
        children.push_back(NullColumn(member.type, out.length));
      } else {
        FLOE_ASSIGN_OR_RETURN(Column child, ConformColumn(std::move(out.children[static_cast<size_t>(found)]),
                                                          member.type, path + "." + member.name));
        children.push_back(std::move(child));
      }
    }
    out.children = std::move(children);
    out.type = type;
    return out;
  }
  return internal::CastColumn(column, type, path);
}

}  // namespace

int ColumnIndex(const Schema& schema, std::string_view name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Schema DeadLetterSchema(const RecordOrigin& origin) {
  Schema schema = origin.DeadLetterPlace();
  schema.push_back(MakeField("value", String()));
  schema.push_back(MakeField("error", String(), false));
  return schema;
}

bool SkipRecord(const std::vector<StreamRecord>& records, size_t index, DecodedRecords* out,
                std::vector<RecordDeadLetter>* dead) {
  const StreamRecord& record = records[index];
  out->payload_bytes +=
      static_cast<int64_t>((record.key ? record.key->size() : 0) + (record.value ? record.value->size() : 0));
  if (!record.error.empty()) {
    dead->push_back({index, record.error});
    return true;
  }
  if (record.value) return false;
  ++out->tombstones;
  return true;
}

Status AddRecordPart(RecordBatch batch, const std::vector<size_t>& records, std::vector<std::string> errors,
                     std::vector<RecordPart>* parts, std::vector<RecordDeadLetter>* dead) {
  RecordPart part;
  std::vector<int64_t> keep;
  for (size_t k = 0; k < records.size(); ++k) {
    if (errors[k].empty()) {
      keep.push_back(static_cast<int64_t>(k));
      part.records.push_back(records[k]);
    } else {
      dead->push_back({records[k], std::move(errors[k])});
    }
  }
  if (keep.size() != static_cast<size_t>(batch.num_rows)) {
    FLOE_ASSIGN_OR_RETURN(batch, TakeBatchRows(batch, keep));
  }
  part.batch = std::move(batch);
  if (!part.records.empty()) parts->push_back(std::move(part));
  return Status::OK();
}

Result<DecodedRecords> AssembleDecodedRecords(const RecordOrigin& origin,
                                              const std::vector<StreamRecord>& records,
                                              std::vector<RecordPart> parts,
                                              std::vector<RecordDeadLetter> dead, bool metadata_column,
                                              DecodedRecords out) {
  const std::string where = origin.Where();
  // The union of the parts' schemas, the newest (last record) decides the order of conflicts.
  std::sort(parts.begin(), parts.end(),
            [](const RecordPart& a, const RecordPart& b) { return a.records.back() < b.records.back(); });
  if (!parts.empty()) {
    DataType joined = Struct(parts.back().batch.schema);
    std::vector<bool> fits(parts.size(), true);
    for (size_t p = parts.size() - 1; p-- > 0;) {
      auto with = UnionType(Struct(parts[p].batch.schema), joined);
      if (!with) {
        fits[p] = false;
        continue;
      }
      joined = *with;
    }
    // Every part conformed to the union, rows back in record order.
    std::vector<std::pair<size_t, std::pair<size_t, int64_t>>> order;  // record -> (part, row)
    std::vector<RecordBatch> conformed;
    std::vector<size_t> part_slot(parts.size(), SIZE_MAX);
    for (size_t p = 0; p < parts.size(); ++p) {
      if (!fits[p]) {
        for (size_t record : parts[p].records) {
          dead.push_back({record,
                          "its schema cannot join the newer records' schema of this range (a member changed "
                          "to an unrelated type)"});
        }
        continue;
      }
      Column as_struct(Struct(parts[p].batch.schema));
      as_struct.children = std::move(parts[p].batch.columns);
      as_struct.length = parts[p].batch.num_rows;
      FLOE_ASSIGN_OR_RETURN(Column column, ConformColumn(std::move(as_struct), joined, where));
      RecordBatch batch;
      batch.schema = joined.children;
      batch.columns = std::move(column.children);
      batch.num_rows = column.length;
      part_slot[p] = conformed.size();
      for (size_t k = 0; k < parts[p].records.size(); ++k) {
        order.push_back({parts[p].records[k], {conformed.size(), static_cast<int64_t>(k)}});
      }
      conformed.push_back(std::move(batch));
    }
    std::sort(order.begin(), order.end());
    RecordBatch rows;
    if (conformed.size() == 1) {
      rows = std::move(conformed.front());
    } else if (!conformed.empty()) {
      FLOE_ASSIGN_OR_RETURN(rows, ConcatBatches(conformed));
      // ConcatBatches keeps part order; put the rows back in record order.
      std::vector<int64_t> base(conformed.size(), 0);
      for (size_t c = 1; c < conformed.size(); ++c) base[c] = base[c - 1] + conformed[c - 1].num_rows;
      std::vector<int64_t> take;
      take.reserve(order.size());
      for (const auto& [record, at] : order) take.push_back(base[at.first] + at.second);
      FLOE_ASSIGN_OR_RETURN(rows, TakeBatchRows(rows, take));
    }
    if (metadata_column && !conformed.empty()) {
      const std::string name(origin.metadata_column());
      Column metadata = MakeEmptyColumn(Struct(origin.MetadataMembers()));
      for (const auto& [record_index, at] : order) {
        origin.AppendMetadata(records[record_index], &metadata.children);
        metadata.AppendStructSlot();
      }
      if (ColumnIndex(rows.schema, name) >= 0) {
        return Status::InvalidArgument(where + ": the records have their own member " + name +
                                       ", where [source] " + std::string(origin.metadata_key()) +
                                       " (or the default ordering of changes = \"debezium\") puts where "
                                       "each record came from");
      }
      rows.schema.push_back(MakeField(name, metadata.type, false));
      rows.columns.push_back(std::move(metadata));
    }
    out.rows = std::move(rows);
    out.row_records.reserve(order.size());
    for (const auto& [record_index, at] : order) out.row_records.push_back(record_index);
  }

  BuildDeadLetters(origin, records, std::move(dead), &out);
  return out;
}

void BuildDeadLetters(const RecordOrigin& origin, const std::vector<StreamRecord>& records,
                      std::vector<RecordDeadLetter> dead, DecodedRecords* decoded) {
  DecodedRecords& out = *decoded;
  // Dead letters in record order.
  std::stable_sort(dead.begin(), dead.end(),
                   [](const RecordDeadLetter& a, const RecordDeadLetter& b) { return a.record < b.record; });
  out.dead_letters = RecordBatch();
  out.dead_letter_records.clear();
  out.dead_letter_errors.clear();
  out.dead_letters.schema = DeadLetterSchema(origin);
  for (const Field& field : out.dead_letters.schema)
    out.dead_letters.columns.push_back(MakeEmptyColumn(field.type));
  auto& columns = out.dead_letters.columns;
  const size_t value_column = columns.size() - 2;
  for (const RecordDeadLetter& letter : dead) {
    const StreamRecord& record = records[letter.record];
    origin.AppendDeadLetterPlace(record, &columns);
    if (record.value) {
      columns[value_column].AppendBytes(Base64Encode(*record.value));
    } else {
      columns[value_column].AppendNull();
    }
    columns[value_column + 1].AppendBytes(origin.Describe(record) + ": " + letter.error);
    out.dead_letter_records.push_back(letter.record);
    out.dead_letter_errors.push_back(letter.error);
  }
  out.dead_letters.num_rows = static_cast<int64_t>(dead.size());
}

Status DeadLetterRows(const RecordOrigin& origin, const std::vector<StreamRecord>& records,
                      const std::vector<std::pair<int64_t, std::string>>& row_errors,
                      DecodedRecords* decoded) {
  if (row_errors.empty()) return Status::OK();
  std::vector<RecordDeadLetter> dead;
  for (size_t k = 0; k < decoded->dead_letter_records.size(); ++k) {
    dead.push_back({decoded->dead_letter_records[k], decoded->dead_letter_errors[k]});
  }
  std::vector<bool> leaves(static_cast<size_t>(decoded->rows.num_rows), false);
  for (const auto& [row, error] : row_errors) {
    if (row < 0 || row >= decoded->rows.num_rows || leaves[static_cast<size_t>(row)]) continue;
    leaves[static_cast<size_t>(row)] = true;
    dead.push_back({decoded->row_records[static_cast<size_t>(row)], error});
  }
  std::vector<int64_t> keep;
  std::vector<size_t> kept_records;
  for (int64_t row = 0; row < decoded->rows.num_rows; ++row) {
    if (leaves[static_cast<size_t>(row)]) continue;
    keep.push_back(row);
    kept_records.push_back(decoded->row_records[static_cast<size_t>(row)]);
  }
  FLOE_ASSIGN_OR_RETURN(decoded->rows, TakeBatchRows(decoded->rows, keep));
  decoded->row_records = std::move(kept_records);
  BuildDeadLetters(origin, records, std::move(dead), decoded);
  return Status::OK();
}

}  // namespace floe::ingest
