// The options the text formats (jsonl, json, csv) share, built once from
// [source] (TextFormatConfig) when the source opens: type inference, schema
// hints, compression and the bad-record policy. Bad values of [source] keys
// (a schema hint that does not parse) are errors naming the key.
// Immutable after MakeTextFormatOptions; safe to share between threads.
#pragma once

#include <string_view>

#include "common/status.h"
#include "formats/rescued_data.h"
#include "formats/schema_hints.h"
#include "formats/text_inference.h"
#include "formats/unit_bytes.h"
#include "ingest/config/config.h"

namespace floe::ingest {

struct TextFormatOptions {
  formats::TypeInferenceOptions inference;
  formats::SchemaHints schema_hints;
  formats::CompressionChoice compression;
  // rescue: into _rescued_data; quarantine: the reader fails, naming the
  // file, line and field, and the pipeline quarantines the file.
  formats::BadDataPolicy bad_records = formats::BadDataPolicy::kRescue;
  int64_t schema_sample_bytes = 0;
  // With [source] include globs, the globs alone pick the files (Firehose and
  // many exporters write names without an extension); else the format's
  // extensions do (IsTextDataFile).
  bool any_name = false;
};

Result<TextFormatOptions> MakeTextFormatOptions(const SourceConfig& config);

// `hints` plus a hint for each of `table_columns` that `hints` does not name
// (FileFormat::Open's table columns: the user's hints win).
formats::SchemaHints WithTableColumns(const formats::SchemaHints& hints, const Schema& table_columns);

// Whether `path` is a data file for `options` given the format's extensions
// (lower case, without the dot; a compression suffix after them is allowed).
bool IsTextDataFile(const TextFormatOptions& options, std::string_view path,
                    std::initializer_list<std::string_view> extensions);

}  // namespace floe::ingest
