#include "ingest/format/text_format_options.h"

#include <algorithm>
#include <string>

namespace floe::ingest {

Result<TextFormatOptions> MakeTextFormatOptions(const SourceConfig& config) {
  const TextFormatConfig& text = config.text;
  TextFormatOptions options;
  options.inference.infer_column_types = text.infer_column_types;
  options.inference.timestamp_format = text.timestamp_format;
  options.inference.date_format = text.date_format;
  auto hints = formats::SchemaHints::Parse(text.schema_hints);
  if (!hints.ok()) return hints.status().WithContext("[source] schema_hints");
  options.schema_hints = std::move(hints).value();
  auto compression = formats::ParseCompressionChoice(text.compression);
  if (!compression.ok()) return compression.status().WithContext("[source] compression");
  options.compression = *compression;
  options.bad_records =
      text.quarantine_bad_records ? formats::BadDataPolicy::kFail : formats::BadDataPolicy::kRescue;
  options.schema_sample_bytes = text.schema_sample_bytes;
  options.any_name = !config.include.empty();
  return options;
}

formats::SchemaHints WithTableColumns(const formats::SchemaHints& hints, const Schema& table_columns) {
  formats::SchemaHints out = hints;
  for (const Field& column : table_columns) {
    if (hints.FindTopLevel(column.name) == nullptr) out.Add({{column.name}, column.type});
  }
  return out;
}

bool IsTextDataFile(const TextFormatOptions& options, std::string_view path,
                    std::initializer_list<std::string_view> extensions) {
  if (options.any_name) return true;
  const std::string extension = formats::DataExtension(path);
  return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

}  // namespace floe::ingest
