#include "ingest/config/aggregate_config.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "ingest/config/aggregate_section.h"
#include "ingest/config/transform_config.h"

namespace floe::ingest {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsIdentifier(std::string_view text) {
  if (text.empty() || text.size() > 128 || std::isdigit(static_cast<unsigned char>(text.front())))
    return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// "f(args)" split into f and args; false when the text is not a call.
bool SplitCall(std::string_view text, std::string* function, std::string_view* args) {
  const size_t open = text.find('(');
  if (open == std::string_view::npos || text.back() != ')') return false;
  *function = Lower(Trim(text.substr(0, open)));
  *args = Trim(text.substr(open + 1, text.size() - open - 2));
  return IsIdentifier(*function);
}

}  // namespace

std::optional<int64_t> ParseAggregateDuration(std::string_view text) {
  text = Trim(text);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits > 0 && digits < 12) {
    const int64_t count = std::stoll(std::string(text.substr(0, digits)));
    std::string unit = Lower(Trim(text.substr(digits)));
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    static const std::vector<std::pair<std::string, int64_t>> kUnits = {
        {"millisecond", 1}, {"second", 1000}, {"minute", 60'000}, {"hour", 3'600'000}, {"day", 86'400'000}};
    for (const auto& [name, ms] : kUnits) {
      if (unit == name) return count * ms;
    }
  }
  auto parsed = ParseDurationMs(std::string(text));
  if (parsed.ok()) return *parsed;
  return std::nullopt;
}

const char* AggregateFunctionName(AggregateFunction function) {
  switch (function) {
    case AggregateFunction::kCountRows:
    case AggregateFunction::kCount: return "count";
    case AggregateFunction::kSum: return "sum";
    case AggregateFunction::kAvg: return "avg";
    case AggregateFunction::kMin: return "min";
    case AggregateFunction::kMax: return "max";
  }
  return "?";
}

std::string AggregateDefinitionText(const AggregateConfig& config) {
  std::string text = "group_by [";
  for (size_t i = 0; i < config.group_by.size(); ++i) {
    const AggregateGroup& group = config.group_by[i];
    if (i > 0) text += ", ";
    if (group.window_ms == 0) {
      text += group.column;
    } else if (group.slide_ms == 0) {
      text += "window(" + group.column + ", " + std::to_string(group.window_ms) + " ms)";
    } else {
      text += "hop(" + group.column + ", " + std::to_string(group.window_ms) + " ms, " +
              std::to_string(group.slide_ms) + " ms)";
    }
  }
  text += "], measures [";
  for (size_t i = 0; i < config.measures.size(); ++i) {
    const AggregateMeasure& measure = config.measures[i];
    if (i > 0) text += ", ";
    text += std::string(AggregateFunctionName(measure.function)) + "(" +
            (measure.column.empty() ? "*" : measure.column) + ") AS " + measure.name;
  }
  text += "], filter [" + config.filter + "]";
  return text;
}

Result<AggregateGroup> ParseAggregateGroup(const std::string& text) {
  const std::string_view trimmed = Trim(text);
  if (IsIdentifier(trimmed)) return AggregateGroup{std::string(trimmed), 0, 0};
  constexpr const char* kExpected =
      "expected a column name, window(column, '5 minutes') or hop(column, '10 minutes', '5 minutes')";
  std::string function;
  std::string_view args;
  if (!SplitCall(trimmed, &function, &args)) {
    return Status::InvalidArgument("\"" + text + "\": " + kExpected);
  }
  if (function != "window" && function != "hop") {
    return Status::InvalidArgument("\"" + text + "\": unsupported grouping " + function + "(); " + kExpected);
  }
  const bool hop = function == "hop";
  const std::string usage = hop ? "hop(column, '10 minutes', '5 minutes')" : "window(column, '5 minutes')";
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t comma = args.find(',', start);
    parts.push_back(Trim(args.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (parts.size() != (hop ? 3u : 2u) || !IsIdentifier(parts[0])) {
    return Status::InvalidArgument("\"" + text + "\": expected " + usage);
  }
  auto duration = [&](std::string_view quoted, const char* what) -> Result<int64_t> {
    if (quoted.size() < 2 || quoted.front() != '\'' || quoted.back() != '\'') {
      return Status::InvalidArgument("\"" + text + "\": the window " + what + " must be quoted, as in " +
                                     usage);
    }
    quoted = quoted.substr(1, quoted.size() - 2);
    const std::optional<int64_t> ms = ParseAggregateDuration(quoted);
    if (!ms || *ms <= 0) {
      return Status::InvalidArgument("\"" + text + "\": bad window " + what + " '" + std::string(quoted) +
                                     "' (expected a positive number and a unit: milliseconds, seconds, "
                                     "minutes, hours, days)");
    }
    return *ms;
  };
  FLOE_ASSIGN_OR_RETURN(const int64_t size_ms, duration(parts[1], "size"));
  if (!hop) return AggregateGroup{std::string(parts[0]), size_ms, 0};
  FLOE_ASSIGN_OR_RETURN(const int64_t slide_ms, duration(parts[2], "slide"));
  if (slide_ms > size_ms) {
    return Status::InvalidArgument("\"" + text +
                                   "\": the slide is longer than the window, so some rows "
                                   "would be in no window (a slide equal to the size is window())");
  }
  if ((size_ms + slide_ms - 1) / slide_ms > kMaxWindowsPerRow) {
    return Status::InvalidArgument(
        "\"" + text + "\": each row would be in " + std::to_string((size_ms + slide_ms - 1) / slide_ms) +
        " windows; at most " + std::to_string(kMaxWindowsPerRow) + " (a longer slide or a shorter window)");
  }
  return AggregateGroup{std::string(parts[0]), size_ms, slide_ms == size_ms ? 0 : slide_ms};
}

Result<AggregateMeasure> ParseAggregateMeasure(const std::string& text) {
  std::string_view call = Trim(text);
  std::string name;
  // "<call> AS <name>", AS in any case.
  const std::string lowered = Lower(call);
  if (size_t as = lowered.rfind(" as "); as != std::string::npos) {
    name = std::string(Trim(call.substr(as + 4)));
    call = Trim(call.substr(0, as));
    if (!IsIdentifier(name)) {
      return Status::InvalidArgument(
          "\"" + text + "\": the name after AS must be letters, digits and '_', got \"" + name + "\"");
    }
  }
  std::string function;
  std::string_view args;
  if (!SplitCall(call, &function, &args)) {
    return Status::InvalidArgument(
        "\"" + text + "\": expected count(*), count(col), sum(col), avg(col), min(col) or max(col)");
  }
  AggregateMeasure measure;
  static const std::vector<std::pair<std::string, AggregateFunction>> kFunctions = {
      {"count", AggregateFunction::kCount},
      {"sum", AggregateFunction::kSum},
      {"avg", AggregateFunction::kAvg},
      {"min", AggregateFunction::kMin},
      {"max", AggregateFunction::kMax}};
  auto found = std::find_if(kFunctions.begin(), kFunctions.end(),
                            [&](const auto& entry) { return entry.first == function; });
  if (found == kFunctions.end()) {
    return Status::InvalidArgument("\"" + text + "\": unsupported measure " + function +
                                   "(); supported: count(*), count, sum, avg, min, max");
  }
  measure.function = found->second;
  if (args == "*") {
    if (measure.function != AggregateFunction::kCount) {
      return Status::InvalidArgument("\"" + text + "\": only count takes *");
    }
    measure.function = AggregateFunction::kCountRows;
  } else if (IsIdentifier(args)) {
    measure.column = std::string(args);
  } else {
    return Status::InvalidArgument("\"" + text + "\": the argument must be one column name" +
                                   (measure.function == AggregateFunction::kCount ? " or *" : ""));
  }
  if (name.empty()) {
    name = AggregateFunctionName(measure.function);
    if (!measure.column.empty()) name += "_" + measure.column;
  }
  measure.name = std::move(name);
  return measure;
}

namespace config_internal {
namespace {

// Whether the source's config says which tables it has, and `table` is not one of them.
std::optional<std::string> TableOutsideSource(const SourceConfig& source, const std::string& table) {
  const std::string wanted = Lower(table);
  std::vector<std::string> names;
  if (source.discovery == DiscoveryKind::kTableChanges) {
    for (const std::string& qualified : source.table_changes.tables)
      names.push_back(Lower(qualified.substr(qualified.rfind('.') + 1)));
  } else if (source.discovery == DiscoveryKind::kPrefix && source.table_from_path.empty() &&
             !source.table.empty()) {
    names.push_back(Lower(source.table));
  } else if (source.discovery == DiscoveryKind::kCda && !source.include.empty()) {
    for (const std::string& include : source.include) {
      if (include.find_first_of("*?[\\") != std::string::npos) return std::nullopt;
      names.push_back(Lower(include));
    }
  } else {
    return std::nullopt;
  }
  if (std::find(names.begin(), names.end(), wanted) != names.end()) return std::nullopt;
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// `watermark` and `late_changes` of `aggregate`, whose group_by is read.
Status ReadWatermark(SectionReader& section, AggregateConfig* aggregate) {
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> watermark, section.String("watermark"));
  FLOE_ASSIGN_OR_RETURN(std::optional<size_t> late, section.Choice("late_changes", {"apply", "drop"}));
  if (watermark) {
    const std::optional<int64_t> ms = ParseAggregateDuration(*watermark);
    if (!ms || *ms < 0) {
      return section.Error("watermark",
                           "bad duration \"" + *watermark +
                               "\" (expected a number and a unit, as in \"10 minutes\": milliseconds, "
                               "seconds, minutes, hours, days)",
                           section.Find("watermark"));
    }
    // (Two window groups cannot be: both would be window_start and window_end.)
    if (std::none_of(aggregate->group_by.begin(), aggregate->group_by.end(),
                     [](const AggregateGroup& group) { return group.window_ms > 0; })) {
      return section.Error("watermark",
                           "needs a window() or hop() group in group_by (a watermark closes windows once it "
                           "passes their end)",
                           section.Find("watermark"));
    }
    aggregate->watermark_ms = *ms;
  }
  if (late && *late == 1) {
    if (!watermark) {
      return section.Error("late_changes",
                           "\"drop\" needs a watermark (windows close only under one), e.g. watermark = "
                           "\"10 minutes\"",
                           section.Find("late_changes"));
    }
    aggregate->late_changes = LateChanges::kDrop;
  }
  return Status::OK();
}

}  // namespace

Status ReadAggregates(const ParseContext& context, const toml::node* node, const SourceConfig& source,
                      std::vector<AggregateConfig>* out) {
  if (!node) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(const toml::array* array,
                        ArrayOfTables(context, *node, "aggregates", "name, table, group_by, measures"));
  std::set<std::string> names;
  size_t number = 0;
  for (const toml::node& element : *array) {
    ++number;
    const toml::table* table = element.as_table();
    SectionReader numbered(context, "[[aggregates]] #" + std::to_string(number), table);
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> name, numbered.String("name"));
    if (!name) return numbered.Error("name", "is required (the output table's name)", &element);
    if (!IsIdentifier(*name)) {
      return numbered.Error("name",
                            "expected letters, digits and '_' (it names a table), got \"" + *name + "\"",
                            numbered.Find("name"));
    }
    if (!names.insert(Lower(*name)).second) {
      return numbered.Error("name", "\"" + *name + "\" names a second aggregate", numbered.Find("name"));
    }
    SectionReader section(context, "[[aggregates]] \"" + *name + "\"", table);
    section.Find("name");
    AggregateConfig aggregate;
    aggregate.name = *name;
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> source_table, section.String("table"));
    if (!source_table || source_table->empty())
      return section.Error("table", "is required (the source table the aggregate reads)");
    if (std::optional<std::string> known = TableOutsideSource(source, *source_table)) {
      return section.Error(
          "table",
          "\"" + *source_table + "\" is not a table of this pipeline (its source has: " + *known + ")",
          section.Find("table"));
    }
    aggregate.table = *source_table;
    FLOE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> group_by, section.StringArray("group_by"));
    FLOE_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> measures, section.StringArray("measures"));
    if (!measures || measures->empty())
      return section.Error("measures", "is required: e.g. [\"count(*)\", \"sum(amount) AS revenue\"]");
    std::set<std::string> columns;
    auto add_column = [&](const std::string& key, const std::string& column) -> Status {
      if (Lower(column).starts_with("_floe_"))
        return section.Error(key, "\"" + column + "\": names starting with _floe_ are floe's own columns");
      if (!columns.insert(Lower(column)).second)
        return section.Error(key,
                             "two output columns are named \"" + column + "\" (use AS to rename a measure)");
      return Status::OK();
    };
    for (const std::string& text : group_by.value_or(std::vector<std::string>{})) {
      auto group = ParseAggregateGroup(text);
      if (!group.ok()) return section.Error("group_by", group.status().message(), section.Find("group_by"));
      if (group->window_ms > 0) {
        FLOE_RETURN_IF_ERROR(add_column("group_by", "window_start"));
        FLOE_RETURN_IF_ERROR(add_column("group_by", "window_end"));
      } else {
        FLOE_RETURN_IF_ERROR(add_column("group_by", group->column));
      }
      aggregate.group_by.push_back(std::move(group).value());
    }
    for (const std::string& text : *measures) {
      auto measure = ParseAggregateMeasure(text);
      if (!measure.ok())
        return section.Error("measures", measure.status().message(), section.Find("measures"));
      FLOE_RETURN_IF_ERROR(add_column("measures", measure->name));
      aggregate.measures.push_back(std::move(measure).value());
    }
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> filter, Expression(section, "filter"));
    aggregate.filter = filter.value_or("");
    FLOE_RETURN_IF_ERROR(ReadWatermark(section, &aggregate));
    FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
    out->push_back(std::move(aggregate));
  }
  return Status::OK();
}

}  // namespace config_internal
}  // namespace floe::ingest
