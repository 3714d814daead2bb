#include "ingest/partition_spec_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

#include "common/strings.h"

namespace floe::ingest {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

struct ParsedEntry {
  std::string transform_name;  // lower case; "identity" for a bare column
  std::vector<std::string> arguments;
};

Result<ParsedEntry> SplitEntry(std::string_view entry, const std::string& quoted) {
  entry = Trim(entry);
  if (entry.empty()) return Status::InvalidArgument("partition_by " + quoted + ": empty entry");
  const size_t open = entry.find('(');
  if (open == std::string_view::npos) {
    if (entry.find(')') != std::string_view::npos || entry.find(',') != std::string_view::npos) {
      return Status::InvalidArgument("partition_by " + quoted + ": expected column or transform(column)");
    }
    return ParsedEntry{"identity", {std::string(entry)}};
  }
  if (entry.back() != ')' || entry.find('(', open + 1) != std::string_view::npos ||
      entry.find(')') != entry.size() - 1) {
    return Status::InvalidArgument("partition_by " + quoted + ": expected transform(arguments)");
  }
  ParsedEntry parsed;
  parsed.transform_name = AsciiLower(Trim(entry.substr(0, open)));
  std::string_view inside = entry.substr(open + 1, entry.size() - open - 2);
  while (true) {
    const size_t comma = inside.find(',');
    std::string_view argument = Trim(inside.substr(0, comma));
    if (argument.empty()) return Status::InvalidArgument("partition_by " + quoted + ": empty argument");
    parsed.arguments.emplace_back(argument);
    if (comma == std::string_view::npos) break;
    inside.remove_prefix(comma + 1);
  }
  return parsed;
}

Result<int32_t> ParsePositive(const std::string& text, const std::string& quoted, const char* what) {
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) {
    return Status::InvalidArgument("partition_by " + quoted + ": " + what +
                                   " must be a positive integer, got \"" + text + "\"");
  }
  return value;
}

Result<iceberg::PartitionField> ParseEntry(const std::string& entry, const iceberg::Schema& schema) {
  const std::string quoted = "\"" + entry + "\"";
  FLOE_ASSIGN_OR_RETURN(ParsedEntry parsed, SplitEntry(entry, quoted));
  const std::string& name = parsed.transform_name;
  iceberg::Transform transform;
  std::string suffix;
  std::string column;
  const bool takes_parameter = name == "bucket" || name == "truncate";
  const size_t expected_arguments = takes_parameter ? 2 : 1;
  if (name == "identity") {
    transform = iceberg::Transform::Identity();
  } else if (name == "year" || name == "years") {
    transform = iceberg::Transform::Year();
    suffix = "_year";
  } else if (name == "month" || name == "months") {
    transform = iceberg::Transform::Month();
    suffix = "_month";
  } else if (name == "day" || name == "days") {
    transform = iceberg::Transform::Day();
    suffix = "_day";
  } else if (name == "hour" || name == "hours") {
    transform = iceberg::Transform::Hour();
    suffix = "_hour";
  } else if (!takes_parameter) {
    return Status::InvalidArgument("partition_by " + quoted + ": unknown transform \"" + name +
                                   "\" (identity, year, month, day, hour, bucket, truncate)");
  }
  if (parsed.arguments.size() != expected_arguments) {
    return Status::InvalidArgument("partition_by " + quoted + ": " + name + " takes " +
                                   (takes_parameter ? "(N, column)" : "(column)"));
  }
  if (name == "bucket") {
    FLOE_ASSIGN_OR_RETURN(int32_t buckets, ParsePositive(parsed.arguments[0], quoted, "the bucket count"));
    transform = iceberg::Transform::Bucket(buckets);
    suffix = "_bucket";
  } else if (name == "truncate") {
    FLOE_ASSIGN_OR_RETURN(int32_t width, ParsePositive(parsed.arguments[0], quoted, "the truncate width"));
    transform = iceberg::Transform::Truncate(width);
    suffix = "_trunc";
  }
  column = parsed.arguments.back();
  const iceberg::NestedField* source = schema.FindFieldByName(column);
  if (source == nullptr) {
    return Status::InvalidArgument("partition_by " + quoted + ": the table has no column " + column);
  }
  if (!transform.CanApply(source->type)) {
    return Status::InvalidArgument("partition_by " + quoted + ": " + transform.ToString() +
                                   " does not apply to column " + column + " of type " +
                                   source->type.ToString());
  }
  iceberg::PartitionField field;
  field.source_id = source->id;
  field.name = column + suffix;
  field.transform = transform;
  return field;
}

}  // namespace

Result<iceberg::PartitionSpec> ParsePartitionSpec(const std::vector<std::string>& entries,
                                                  const iceberg::Schema& schema) {
  iceberg::PartitionSpec spec;
  for (const std::string& entry : entries) {
    FLOE_ASSIGN_OR_RETURN(iceberg::PartitionField field, ParseEntry(entry, schema));
    for (const iceberg::PartitionField& existing : spec.fields) {
      if (existing.name == field.name) {
        return Status::InvalidArgument("partition_by \"" + entry + "\": partition field " + field.name +
                                       " is given twice");
      }
    }
    field.field_id = iceberg::kFirstPartitionFieldId + static_cast<int32_t>(spec.fields.size());
    spec.fields.push_back(std::move(field));
  }
  if (Status valid = spec.Validate(schema); !valid.ok()) return valid.WithContext("partition_by");
  return spec;
}

}  // namespace floe::ingest
