#include "ingest/changes/operation_codes.h"

#include <algorithm>
#include <optional>

#include "columnar/integer_cells.h"
#include "common/strings.h"
#include "ingest/schema/name_match.h"

namespace floe::ingest {

namespace {

// A code quoted for a message, cut short so a huge cell cannot flood a log.
std::string QuotedCode(std::string_view code) {
  constexpr size_t kMaxChars = 40;
  if (code.size() <= kMaxChars) return "\"" + std::string(code) + "\"";
  return "\"" + std::string(code.substr(0, kMaxChars)) + "...\"";
}

}  // namespace

OperationMap::OperationMap(const MergeConfig& merge) {
  const std::pair<const char*, const std::vector<OperationCode>*> lists[] = {
      {"insert", &merge.insert_values},
      {"update", &merge.update_values},
      {"delete", &merge.delete_values},
      {"ignore", &merge.ignore_values}};
  const OperationAction actions[] = {OperationAction::kInsert, OperationAction::kUpdate,
                                     OperationAction::kDelete, OperationAction::kIgnore};
  for (size_t i = 0; i < 4; ++i) {
    std::string codes;
    for (const OperationCode& code : *lists[i].second) {
      // The config parser refuses a code in two lists; the first list wins for configs built in code.
      if (const auto* integer = std::get_if<int64_t>(&code)) {
        integers_.emplace(*integer, actions[i]);
      } else {
        strings_.emplace(std::get<std::string>(code), actions[i]);
      }
      codes += (codes.empty() ? "" : ", ") + OperationCodeText(code);
    }
    description_ += std::string(i == 0 ? "" : "; ") + lists[i].first + " " + (codes.empty() ? "none" : codes);
  }
}

OperationAction OperationMap::Classify(int64_t code) const {
  auto it = integers_.find(code);
  return it == integers_.end() ? OperationAction::kUnknown : it->second;
}

OperationAction OperationMap::Classify(std::string_view code) const {
  auto it = strings_.find(std::string(code));
  return it == strings_.end() ? OperationAction::kUnknown : it->second;
}

std::string OperationMap::Describe() const {
  return description_;
}

int FindColumn(const floe::Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    if (EqualsIgnoreAsciiCase(schema[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

Status CheckOperationColumn(const floe::Schema& schema, int index, const OperationMap& operations) {
  const Field& operation = schema[static_cast<size_t>(index)];
  const std::string prefix = "operation column " + operation.name + " has type " + operation.type.ToString();
  if (IsIntegerType(operation.type)) {
    if (operations.has_integer_codes()) return Status::OK();
    return Status::InvalidArgument(prefix +
                                   "; [merge] insert_values, update_values, delete_values and "
                                   "ignore_values hold no integer codes (" +
                                   operations.Describe() + ")");
  }
  if (operation.type.id == TypeId::kString) {
    if (operations.has_string_codes()) return Status::OK();
    return Status::InvalidArgument(prefix +
                                   "; [merge] insert_values, update_values, delete_values and "
                                   "ignore_values hold no string codes (" +
                                   operations.Describe() +
                                   "): give them as strings, like insert_values = [\"I\"]");
  }
  return Status::InvalidArgument(prefix + "; expected an integer or string type");
}

std::vector<OperationAction> ClassifyOperations(const Column& column, const std::string& name,
                                                int64_t first_row, const OperationMap& operations,
                                                std::vector<BadRow>* bad_rows) {
  std::vector<OperationAction> actions(static_cast<size_t>(column.length));
  const bool strings = column.type.id == TypeId::kString;
  for (int64_t row = 0; row < column.length; ++row) {
    if (column.IsNull(row)) {
      actions[static_cast<size_t>(row)] = OperationAction::kUnknown;
      bad_rows->push_back({first_row + row, "column " + name + ": null operation code"});
      continue;
    }
    OperationAction action = OperationAction::kUnknown;
    std::string code_text;
    if (strings) {
      const std::string_view code = column.StringAt(row);
      action = operations.Classify(code);
      if (action == OperationAction::kUnknown) code_text = QuotedCode(code);
    } else {
      // A uint64 code past int64's range (nullopt) matches no configured code.
      const std::optional<int64_t> code = IntegerCell(column, row);
      if (code) action = operations.Classify(*code);
      if (action == OperationAction::kUnknown) {
        code_text = code ? std::to_string(*code) : std::to_string(column.Value<uint64_t>(row));
      }
    }
    if (action == OperationAction::kUnknown) {
      bad_rows->push_back({first_row + row, "column " + name + ": unknown operation code " + code_text +
                                                " (" + operations.Describe() + ")"});
    }
    actions[static_cast<size_t>(row)] = action;
  }
  return actions;
}

}  // namespace floe::ingest
