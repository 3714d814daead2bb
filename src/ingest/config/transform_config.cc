#include "ingest/config/transform_config.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "common/strings.h"
#include "expr/expression.h"

namespace floe::ingest {

namespace config_internal {

namespace {

const std::vector<std::string> kActionNames = {"warn", "drop", "quarantine", "fail"};

bool IsExpectationName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

// `text` (the value at `key`) syntax-checked; an error names the key, the
// expression and the position.
Status CheckExpression(const SectionReader& section, const std::string& key, const std::string& text,
                       const toml::node* node) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return section.Error(key, "an empty expression", node);
  }
  Status syntax = expr::Expression::CheckSyntax(text);
  if (!syntax.ok()) return section.Error(key, syntax.message(), node);
  return Status::OK();
}

}  // namespace

Result<std::optional<std::string>> Expression(SectionReader& section, const std::string& key) {
  const toml::node* node = section.Find(key);
  if (!node) return std::optional<std::string>();
  const auto* value = node->as_string();
  if (!value)
    return section.Error(key, "expected an expression (a string), got " + DescribeTomlValue(*node), node);
  FLOE_RETURN_IF_ERROR(CheckExpression(section, key, value->get(), node));
  return std::optional<std::string>(value->get());
}

namespace {

// The entries of a table of strings in the order the file gives them
// (toml++ keeps tables sorted by key; the source positions keep the order).
Result<std::vector<std::pair<std::string, const toml::node*>>> EntriesInFileOrder(SectionReader& section,
                                                                                  std::string_view key,
                                                                                  const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (const auto& [name, value] : table) {
    const std::string full = std::string(key) + "." + std::string(name.str());
    if (!value.as_string()) {
      return section.Error(full, "expected a string, got " + DescribeTomlValue(value), &value);
    }
    if (name.str().empty()) return section.Error(full, "an empty column name", &value);
    entries.emplace_back(std::string(name.str()), &value);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& x = a.second->source().begin;
    const auto& y = b.second->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return entries;
}

}  // namespace

Status ReadTransform(const ParseContext& context, const toml::table* table, const std::string& label,
                     TransformOverride* out) {
  if (!table) return Status::OK();
  SectionReader section(context, label, table);
  FLOE_ASSIGN_OR_RETURN(out->filter, Expression(section, "filter"));
  FLOE_ASSIGN_OR_RETURN(out->drop, section.StringArray("drop"));
  if (const toml::node* node = section.Find("columns")) {
    const auto* columns = node->as_table();
    if (!columns) {
      return section.Error(
          "columns", "expected a table of name = \"expression\", got " + DescribeTomlValue(*node), node);
    }
    FLOE_ASSIGN_OR_RETURN(auto entries, EntriesInFileOrder(section, "columns", *columns));
    std::vector<DerivedColumn> derived;
    for (const auto& [name, value] : entries) {
      const std::string text = value->as_string()->get();
      FLOE_RETURN_IF_ERROR(CheckExpression(section, "columns." + name, text, value));
      derived.push_back({name, text});
    }
    out->columns = std::move(derived);
  }
  if (const toml::node* node = section.Find("rename")) {
    const auto* renames = node->as_table();
    if (!renames) {
      return section.Error(
          "rename", "expected a table of column = \"new name\", got " + DescribeTomlValue(*node), node);
    }
    FLOE_ASSIGN_OR_RETURN(auto entries, EntriesInFileOrder(section, "rename", *renames));
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& [name, value] : entries) {
      const std::string& to = value->as_string()->get();
      if (to.empty()) return section.Error("rename." + name, "an empty new name", value);
      pairs.emplace_back(name, to);
    }
    out->rename = std::move(pairs);
  }
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());

  // Contradictions within the section, each naming both keys.
  std::set<std::string> dropped;
  for (const std::string& name : out->drop.value_or(std::vector<std::string>{})) {
    if (name.empty()) return section.Error("drop", "an empty column name");
    if (!dropped.insert(AsciiLower(name)).second) return section.Error("drop", "names " + name + " twice");
  }
  std::set<std::string> derived;
  for (const DerivedColumn& column : out->columns.value_or(std::vector<DerivedColumn>{})) {
    if (!derived.insert(AsciiLower(column.name)).second) {
      return section.Error("columns", "defines " + column.name + " twice (names are compared ignoring case)");
    }
    if (dropped.count(AsciiLower(column.name))) {
      return section.Error("columns." + column.name, "is also in drop: define it or drop it, not both");
    }
  }
  std::set<std::string> targets;
  for (const auto& [from, to] : out->rename.value_or(std::vector<std::pair<std::string, std::string>>{})) {
    if (dropped.count(AsciiLower(from))) {
      return section.Error("rename." + from, "is also in drop: rename it or drop it, not both");
    }
    if (!targets.insert(AsciiLower(to)).second) {
      return section.Error("rename." + from, "renames a second column to " + to);
    }
  }
  return Status::OK();
}

Status ReadExpectations(const ParseContext& context, const toml::node* node, const std::string& key,
                        std::vector<ExpectationConfig>* out) {
  if (!node) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(const toml::array* array, ArrayOfTables(context, *node, key, "name, expr, action"));
  std::set<std::string> names;
  size_t number = 0;
  for (const toml::node& element : *array) {
    ++number;
    const toml::table* table = element.as_table();
    SectionReader numbered(context, "[[" + key + "]] #" + std::to_string(number), table);
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> name, numbered.String("name"));
    if (!name) return numbered.Error("name", "is required", &element);
    if (!IsExpectationName(*name)) {
      return numbered.Error("name",
                            "expected letters, digits, '_' and '-' (at most 128; it names snapshot "
                            "summary keys floe.expect.<name>.*), got \"" +
                                *name + "\"",
                            numbered.Find("name"));
    }
    if (!names.insert(*name).second) {
      return numbered.Error("name", "\"" + *name + "\" names a second expectation", numbered.Find("name"));
    }
    SectionReader section(context, "[[" + key + "]] \"" + *name + "\"", table);
    section.Find("name");
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> text, Expression(section, "expr"));
    if (!text) return section.Error("expr", "is required (a predicate every change row must make true)");
    FLOE_ASSIGN_OR_RETURN(std::optional<size_t> action, section.Choice("action", kActionNames));
    FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
    out->push_back(
        {*name, *text, action ? static_cast<ExpectationAction>(*action) : ExpectationAction::kWarn});
  }
  return Status::OK();
}

TransformConfig ApplyTransformOverride(TransformConfig base, const TransformOverride& over) {
  if (over.filter) base.filter = *over.filter;
  if (over.columns) base.columns = *over.columns;
  if (over.drop) base.drop = *over.drop;
  if (over.rename) base.rename = *over.rename;
  return base;
}

std::vector<ExpectationConfig> MergeExpectations(std::vector<ExpectationConfig> base,
                                                 const std::vector<ExpectationConfig>& extra) {
  for (const ExpectationConfig& expectation : extra) {
    auto same = std::find_if(base.begin(), base.end(),
                             [&](const ExpectationConfig& e) { return e.name == expectation.name; });
    if (same != base.end()) {
      *same = expectation;
    } else {
      base.push_back(expectation);
    }
  }
  return base;
}

}  // namespace config_internal

Status CheckTransformKeepsColumns(const TransformConfig& transform,
                                  const std::vector<std::string>& merge_columns, const std::string& label) {
  auto is_merge_column = [&](const std::string& name) -> const std::string* {
    for (const std::string& column : merge_columns) {
      if (EqualsIgnoreAsciiCase(column, name)) return &column;
    }
    return nullptr;
  };
  const std::string why =
      ": the merge reads it from every row and the key index reads it back from the table, so it must "
      "reach the table as it arrives";
  for (const std::string& name : transform.drop) {
    if (const std::string* column = is_merge_column(name)) {
      return Status::InvalidArgument(label + " drop: drops " + *column +
                                     ", a [merge] key or ordering column" + why);
    }
  }
  for (const DerivedColumn& derived : transform.columns) {
    if (const std::string* column = is_merge_column(derived.name)) {
      return Status::InvalidArgument(label + " columns." + derived.name + ": redefines " + *column +
                                     ", a [merge] key or ordering column" + why);
    }
  }
  for (const auto& [from, to] : transform.rename) {
    if (const std::string* column = is_merge_column(from)) {
      return Status::InvalidArgument(label + " rename." + from + ": renames " + *column +
                                     ", a [merge] key or ordering column" + why);
    }
    if (const std::string* column = is_merge_column(to)) {
      return Status::InvalidArgument(label + " rename." + from + ": renames a column onto " + *column +
                                     ", a [merge] key or ordering column" + why);
    }
  }
  return Status::OK();
}

const char* ExpectationActionName(ExpectationAction action) {
  switch (action) {
    case ExpectationAction::kWarn: return "warn";
    case ExpectationAction::kDrop: return "drop";
    case ExpectationAction::kQuarantine: return "quarantine";
    case ExpectationAction::kFail: return "fail";
  }
  return "unknown";
}

}  // namespace floe::ingest
