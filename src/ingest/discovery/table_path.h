// TablePathTemplate: [source] table_from_path — which source table a file
// under a prefix belongs to, for landing zones that hold many tables
// (`prefix/<schema>/<table>/...`: AWS DMS, Debezium Server, the Kafka
// Connect S3 sink, Hive warehouses).
//
// Contract: the template is a glob relative to the source uri in path mode
// (glob.h: `*`, `?` and sets stay within a folder, `**` crosses folders) in
// which the whole segments `{table}` and, optionally, `{schema}` each
// capture one folder name. Both must come before any `**` segment, so each
// captures the same segment of every path it matches ("{schema}/{table}/**",
// "exports/*/{table}/*.parquet"). Match returns the captured names and the
// length of the path up to and including the last captured segment (the
// table's folder: Hive key=value folders count only below it), or nullopt
// for a path the template does not match. Parse refuses a template without
// {table}, a capture that shares its segment with other characters, a
// capture twice or after `**`, with InvalidArgument naming the template.
// Immutable: Match is thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::ingest {

class TablePathTemplate {
 public:
  struct Match {
    std::string schema;  // empty without {schema}
    std::string table;
    size_t table_folder_length = 0;  // characters of the path up to the last captured segment
  };

  static Result<TablePathTemplate> Parse(std::string_view text);
  std::optional<Match> MatchPath(std::string_view relative_path) const;
  const std::string& text() const { return text_; }

 private:
  TablePathTemplate() = default;
  std::string text_;
  std::string glob_;  // the template with captures as `*`
  int table_segment_ = -1;
  int schema_segment_ = -1;
};

}  // namespace floe::ingest
