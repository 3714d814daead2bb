#include "ingest/changes/debezium_changes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "common/strings.h"
#include "ingest/changes/operation_codes.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

namespace {

// A member of the envelope: child indexes from the root (the first one into
// the root's fields: the unit's columns, or payload's members).
struct MemberPath {
  std::vector<size_t> steps;
  std::string name;  // dotted, for messages
  DataType type;
};

// `dotted` ("source.ts_ms") inside `root`, or nullopt when a part is
// missing or a part before the last is not a struct.
std::optional<MemberPath> Resolve(const Schema& root, const std::string& dotted) {
  MemberPath path;
  path.name = dotted;
  const Schema* fields = &root;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const int index = FindColumn(*fields, part);
    if (index < 0) return std::nullopt;
    const Field& field = (*fields)[static_cast<size_t>(index)];
    path.steps.push_back(static_cast<size_t>(index));
    if (dot == std::string::npos) {
      path.type = field.type;
      return path;
    }
    if (field.type.id != TypeId::kStruct) return std::nullopt;
    fields = &field.type.children;
    start = dot + 1;
  }
}

MemberPath Child(const MemberPath& parent, size_t index, const Field& field) {
  MemberPath path = parent;
  path.steps.push_back(index);
  path.name += "." + field.name;
  path.type = field.type;
  return path;
}

// `column` with the nulls of every struct above it: a child slot of a null
// struct holds a zero, which must not read as a value.
Column WithParentNulls(const Column& column, const std::vector<const Column*>& parents) {
  bool any = false;
  for (const Column* parent : parents) any = any || parent->null_count > 0;
  if (!any) return column;
  Column out = column;
  if (out.validity.empty()) out.validity.assign(static_cast<size_t>((out.length + 7) / 8), 0xFF);
  for (int64_t row = 0; row < out.length; ++row) {
    bool parent_null = false;
    for (const Column* parent : parents) parent_null = parent_null || parent->IsNull(row);
    if (parent_null) out.validity[static_cast<size_t>(row >> 3)] &= static_cast<uint8_t>(~(1u << (row & 7)));
  }
  out.null_count = 0;
  for (int64_t row = 0; row < out.length; ++row) out.null_count += out.IsNull(row) ? 1 : 0;
  return out;
}

// Per row, `first`'s value, or `second`'s where use_second[row] (both of
// `first`'s primitive type).
Column ChooseRows(const Column& first, const Column& second, const std::vector<bool>& use_second) {
  Column out(first.type);
  const int width = first.type.fixed_width();
  for (int64_t row = 0; row < first.length; ++row) {
    const Column& from = use_second[static_cast<size_t>(row)] ? second : first;
    if (from.IsNull(row)) {
      out.AppendNull();
    } else if (width > 0) {
      out.AppendFixed(from.values.data() + static_cast<size_t>(row) * static_cast<size_t>(width));
    } else {
      out.AppendBytes(from.StringAt(row));
    }
  }
  return out;
}

bool IsPrimitive(const DataType& type) {
  return type.id != TypeId::kStruct && type.id != TypeId::kList && type.id != TypeId::kMap;
}

struct Layout {
  bool wrapped = false;              // inside {"schema": ..., "payload": {...}}
  int payload = -1;                  // the payload column (wrapped)
  std::vector<int> scan;             // unit columns pass 1 reads
  std::map<size_t, size_t> slot_of;  // unwrapped: unit column -> its place in scan
  MemberPath op;
  std::optional<MemberPath> after, before;  // struct members, when they are structs
  MemberPath image;                         // after, else before
  std::vector<std::string> key_names;       // [merge] keys, or the record key's fields
  // Per key: where it is in after and in before (either may be missing).
  std::vector<std::optional<MemberPath>> key_after, key_before;
  std::vector<std::optional<MemberPath>> orders;  // per ordering column; nullopt: missing
};

class BoundDebezium final : public BoundChanges {
 public:
  BoundDebezium(const MergeConfig& merge, Layout layout, Schema image)
      : merge_(merge),
        operations_(merge),
        ordering_(OrderingSpec::Of(merge)),
        layout_(std::move(layout)),
        image_(std::move(image)) {}

  const std::vector<int>& scan_columns() const override { return layout_.scan; }
  const OrderingSpec& ordering() const override { return ordering_; }
  const Schema& image_schema() const override { return image_; }

  Result<RecordBatch> Image(RecordBatch chunk) const override {
    const MemberPath& path = layout_.image;
    Column* column = layout_.wrapped
                         ? &chunk.columns[static_cast<size_t>(layout_.payload)].children[path.steps[0]]
                         : &chunk.columns[path.steps[0]];
    for (size_t i = 1; i < path.steps.size(); ++i) column = &column->children[path.steps[i]];
    RecordBatch image;
    image.schema = image_;
    image.num_rows = chunk.num_rows;
    std::vector<Column> orders;  // read before the image's members move out
    for (const auto& order : layout_.orders) {
      orders.push_back(order ? InUnit(chunk, *order) : Column());
    }
    image.columns = std::move(column->children);
    for (size_t i = 0; i < orders.size(); ++i) {
      if (!layout_.orders[i]) {
        Column nulls(image_[image.columns.size()].type);
        for (int64_t row = 0; row < chunk.num_rows; ++row) nulls.AppendNull();
        image.columns.push_back(std::move(nulls));
      } else {
        image.columns.push_back(std::move(orders[i]));
      }
    }
    return image;
  }

  Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const override {
    ChunkChanges changes;
    changes.rows = scanned.num_rows;
    const Column op = Member(scanned, layout_.op);
    changes.actions = ClassifyOperations(op, layout_.op.name, first_row, operations_, &changes.bad_rows);
    const size_t rows = static_cast<size_t>(scanned.num_rows);
    std::vector<bool> has_after(rows, false);
    if (layout_.after) {
      const Column after = Member(scanned, *layout_.after);
      for (size_t row = 0; row < rows; ++row) has_after[row] = after.IsValid(static_cast<int64_t>(row));
    }
    std::vector<BadRow> more;
    for (size_t row = 0; row < rows; ++row) {
      OperationAction& action = changes.actions[row];
      if ((action == OperationAction::kInsert || action == OperationAction::kUpdate) && !has_after[row]) {
        more.push_back({first_row + static_cast<int64_t>(row),
                        "column " + layout_.op.name + ": " +
                            (action == OperationAction::kInsert ? "an insert" : "an update") +
                            " without an after image"});
        action = OperationAction::kUnknown;
      }
    }
    // Keys: after's where there is one, else before's (a delete).
    std::vector<bool> use_before(rows);
    for (size_t row = 0; row < rows; ++row) use_before[row] = !has_after[row];
    for (size_t k = 0; k < layout_.key_names.size(); ++k) {
      const auto& in_after = layout_.key_after[k];
      const auto& in_before = layout_.key_before[k];
      std::optional<Column> after_key, before_key;
      if (in_after) after_key = Member(scanned, *in_after);
      if (in_before) before_key = Member(scanned, *in_before);
      Column key = after_key ? *after_key : *before_key;
      if (after_key && before_key) {
        if (after_key->type == before_key->type) {
          key = ChooseRows(*after_key, *before_key, use_before);
        } else {
          for (size_t row = 0; row < rows; ++row) {
            if (!use_before[row] || before_key->IsNull(static_cast<int64_t>(row)) ||
                changes.actions[row] == OperationAction::kUnknown ||
                changes.actions[row] == OperationAction::kIgnore) {
              continue;
            }
            more.push_back({first_row + static_cast<int64_t>(row),
                            "key " + layout_.key_names[k] + ": the before image has type " +
                                before_key->type.ToString() + " where the after image has " +
                                after_key->type.ToString()});
            changes.actions[row] = OperationAction::kUnknown;
          }
          key = *after_key;
        }
      } else if (after_key) {
        key = *after_key;  // rows without an after image have a null key: bad rows
      }
      changes.keys.push_back(std::move(key));
      changes.key_names.push_back(layout_.key_names[k]);
    }
    for (const auto& order : layout_.orders) {
      changes.order_present.push_back(order.has_value());
      changes.orders.push_back(order ? Member(scanned, *order) : Column());
    }
    if (!more.empty()) {
      changes.bad_rows.insert(changes.bad_rows.end(), more.begin(), more.end());
      std::stable_sort(changes.bad_rows.begin(), changes.bad_rows.end(),
                       [](const BadRow& a, const BadRow& b) { return a.row < b.row; });
    }
    return changes;
  }

 private:
  // The member at `path` of a chunk of every unit column, with its parents' nulls.
  Column InUnit(const RecordBatch& chunk, const MemberPath& path) const {
    return At(chunk, layout_.wrapped ? static_cast<size_t>(layout_.payload) : path.steps[0], path);
  }

  // The member at `path` of the scanned columns, with its parents' nulls.
  Column Member(const RecordBatch& scanned, const MemberPath& path) const {
    return At(scanned, layout_.wrapped ? 0 : layout_.slot_of.at(path.steps[0]), path);
  }

  // The member at `path` when `batch.columns[top]` holds the payload
  // (wrapped) or the path's first column (unwrapped).
  Column At(const RecordBatch& batch, size_t top, const MemberPath& path) const {
    std::vector<const Column*> parents;
    const Column* column = &batch.columns[top];
    if (layout_.wrapped) {
      parents.push_back(column);
      column = &column->children[path.steps[0]];
    }
    for (size_t i = 1; i < path.steps.size(); ++i) {
      parents.push_back(column);
      column = &column->children[path.steps[i]];
    }
    return WithParentNulls(*column, parents);
  }

  const MergeConfig merge_;
  const OperationMap operations_;
  const OrderingSpec ordering_;
  const Layout layout_;
  const Schema image_;
};

}  // namespace

Result<std::unique_ptr<BoundChanges>> DebeziumChanges::Bind(const Schema& unit_schema) const {
  const OrderingSpec ordering = OrderingSpec::Of(merge_);
  FLOE_RETURN_IF_ERROR(CheckOrderingSpec(ordering));
  Layout layout;
  const Schema* root = &unit_schema;
  const int payload = FindColumn(unit_schema, "payload");
  if (payload >= 0 && unit_schema[static_cast<size_t>(payload)].type.id == TypeId::kStruct &&
      FindColumn(unit_schema[static_cast<size_t>(payload)].type.children, merge_.operation_column) >= 0) {
    layout.wrapped = true;
    layout.payload = payload;
    root = &unit_schema[static_cast<size_t>(payload)].type.children;
  }
  const std::string where = layout.wrapped ? " in the Debezium envelope's payload" : "";
  auto op = Resolve(*root, merge_.operation_column);
  if (!op) {
    return Status::InvalidArgument("missing operation column " + merge_.operation_column + where +
                                   " (a Debezium change event has op, before, after and source)");
  }
  layout.op = *op;
  {
    Field op_field;
    op_field.name = op->name;
    op_field.type = op->type;
    const Schema op_schema = {op_field};
    FLOE_RETURN_IF_ERROR(CheckOperationColumn(op_schema, 0, OperationMap(merge_)));
  }
  auto struct_member = [&](const char* name) -> std::optional<MemberPath> {
    auto member = Resolve(*root, name);
    if (!member || member->type.id != TypeId::kStruct) return std::nullopt;
    return member;
  };
  layout.after = struct_member("after");
  layout.before = struct_member("before");
  if (!layout.after && !layout.before) {
    return Status::InvalidArgument("neither after nor before" + where +
                                   " is an object: not Debezium change events");
  }
  layout.image = layout.after ? *layout.after : *layout.before;
  layout.key_names = merge_.keys;
  const bool from_record_key = merge_.KeysFromRecordKey();
  if (from_record_key) {
    const int key_column = FindColumn(unit_schema, std::string(kRecordKeyColumn));
    if (key_column < 0 || unit_schema[static_cast<size_t>(key_column)].type.id != TypeId::kStruct) {
      return Status::InvalidArgument(
          "no record key: without [merge] keys the key columns are the fields of the Kafka record key "
          "(Debezium's key struct), and these rows carry none");
    }
    FLOE_ASSIGN_OR_RETURN(layout.key_names,
                          KeyColumnsOf(unit_schema[static_cast<size_t>(key_column)].type.children));
  }
  for (const std::string& key : layout.key_names) {
    std::optional<MemberPath> in_after, in_before;
    for (auto [image, found] : {std::pair{&layout.after, &in_after}, std::pair{&layout.before, &in_before}}) {
      if (!*image) continue;
      const int index = FindColumn((*image)->type.children, key);
      if (index < 0) continue;
      const Field& field = (*image)->type.children[static_cast<size_t>(index)];
      if (!IsPrimitive(field.type)) {
        return Status::InvalidArgument("key column " + (*image)->name + "." + field.name + " has type " +
                                       field.type.ToString() + "; a key must be a primitive value");
      }
      *found = Child(**image, static_cast<size_t>(index), field);
    }
    if (!in_after && !in_before) {
      return Status::InvalidArgument((from_record_key ? "the record key's field " : "missing key column ") +
                                     key +
                                     (from_record_key ? " is in neither the after nor the before image"
                                                      : " in the after and before images") +
                                     where);
    }
    layout.key_after.push_back(in_after);
    layout.key_before.push_back(in_before);
  }
  if (from_record_key) {
    // Only a unit that binds fixes the key (another may have fixed it meanwhile).
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> adopted, MatchAdopted(layout.key_names, /*adopt=*/true));
    if (adopted != layout.key_names) {
      // Another unit fixed the same columns in another order meanwhile: take its order.
      std::vector<std::optional<MemberPath>> after_keys, before_keys;
      for (const std::string& name : adopted) {
        for (size_t k = 0; k < layout.key_names.size(); ++k) {
          if (AsciiLower(layout.key_names[k]) != AsciiLower(name)) continue;
          after_keys.push_back(layout.key_after[k]);
          before_keys.push_back(layout.key_before[k]);
        }
      }
      layout.key_names = std::move(adopted);
      layout.key_after = std::move(after_keys);
      layout.key_before = std::move(before_keys);
    }
  }
  for (const OrderColumn& wanted : ordering.columns) {
    auto order = Resolve(*root, wanted.name);
    if (!order) {
      if (!ordering.missing_is_oldest) {
        return Status::InvalidArgument("missing ordering column " + wanted.name + where +
                                       " ([merge] order_by names a path inside the change event, like "
                                       "\"source.lsn\" or \"source.ts_ms\")");
      }
      layout.orders.push_back(std::nullopt);
      continue;
    }
    FLOE_RETURN_IF_ERROR(CheckOrderColumn(Column(order->type), wanted.kind, order->name));
    layout.orders.push_back(order);
  }
  // What pass 1 reads: the payload, or the top-level columns the paths start at.
  if (layout.wrapped) {
    layout.scan = {payload};
  } else {
    std::vector<size_t> tops = {layout.op.steps[0]};
    for (const auto* image : {&layout.after, &layout.before}) {
      if (*image) tops.push_back((*image)->steps[0]);
    }
    for (const auto& order : layout.orders) {
      if (order) tops.push_back(order->steps[0]);
    }
    std::sort(tops.begin(), tops.end());
    tops.erase(std::unique(tops.begin(), tops.end()), tops.end());
    for (size_t top : tops) {
      layout.slot_of[top] = layout.scan.size();
      layout.scan.push_back(static_cast<int>(top));
    }
  }
  Schema image = layout.image.type.children;
  for (size_t i = 0; i < ordering.columns.size(); ++i) {
    Field field;
    field.name = TableOrderColumnName(ordering.columns[i].name);
    if (FindColumn(image, field.name) >= 0) {
      return Status::InvalidArgument("the row image has its own column " + field.name +
                                     ", where the ordering value " + ordering.columns[i].name + " goes");
    }
    // A missing one (missing_is_oldest) is null: its type is long, as numbers order.
    field.type = layout.orders[i] ? layout.orders[i]->type : Int64();
    image.push_back(std::move(field));
  }
  return std::unique_ptr<BoundChanges>(new BoundDebezium(merge_, std::move(layout), std::move(image)));
}

Result<std::vector<std::string>> DebeziumChanges::KeyColumnsOf(const Schema& members) const {
  if (members.empty()) {
    // Only keyless records (truncates, whose changes are ignored): the key fixed so far.
    std::vector<std::string> adopted = AdoptedKeyColumns();
    if (!adopted.empty()) return adopted;
    return Status::InvalidArgument("the record key has no fields: it names no key column");
  }
  std::vector<std::string> keys;
  for (const Field& member : members) {
    if (!IsPrimitive(member.type)) {
      return Status::InvalidArgument("the record key's field " + member.name + " has type " +
                                     member.type.ToString() + "; a key must be a primitive value");
    }
    keys.push_back(member.name);
  }
  return MatchAdopted(keys, /*adopt=*/false);
}

Result<std::vector<std::string>> DebeziumChanges::MatchAdopted(const std::vector<std::string>& keys,
                                                               bool adopt) const {
  std::lock_guard<std::mutex> lock(adopted_mutex_);
  if (adopted_.empty()) {
    if (adopt) adopted_ = keys;
    return keys;
  }
  std::set<std::string> lower, adopted_lower;
  for (const std::string& key : keys) lower.insert(AsciiLower(key));
  for (const std::string& key : adopted_) adopted_lower.insert(AsciiLower(key));
  if (adopted_lower != lower) {
    auto join = [](const std::vector<std::string>& names) {
      std::string text;
      for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
      return "(" + text + ")";
    };
    return Status::InvalidArgument("the record key's fields " + join(keys) + " are not the table's key " +
                                   join(adopted_) +
                                   ": merging by another key leaves duplicate rows; set [merge] keys, or "
                                   "write these records to another table");
  }
  // The table's names and order: a key's bytes must not depend on the record.
  return adopted_;
}

std::vector<std::string> DebeziumChanges::AdoptedKeyColumns() const {
  std::lock_guard<std::mutex> lock(adopted_mutex_);
  return adopted_;
}

void DebeziumChanges::SetKeyColumns(std::vector<std::string> keys) {
  std::lock_guard<std::mutex> lock(adopted_mutex_);
  adopted_ = std::move(keys);
}

std::string TableOrderColumnName(const std::string& path) {
  std::string name = "__" + path;
  std::replace(name.begin() + 2, name.end(), '.', '_');
  return name;
}

OrderingSpec DebeziumChanges::table_ordering() const {
  OrderingSpec spec = OrderingSpec::Of(merge_);
  for (OrderColumn& column : spec.columns) column.name = TableOrderColumnName(column.name);
  return spec;
}

}  // namespace floe::ingest
