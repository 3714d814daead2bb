// Internal to the pipeline config parser: the [[aggregates]] array. Each
// entry's group_by and measures are parsed (aggregate_config.h), its filter
// syntax-checked, its name and output columns checked for clashes, and its
// table checked against the tables the source names where the config names
// them (a prefix source's table, table_changes tables, CDA include names
// without wildcards). Not for use outside src/ingest/config.
#pragma once

#include <toml++/toml.h>

#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/config/config_section.h"

namespace floe::ingest::config_internal {

Status ReadAggregates(const ParseContext& context, const toml::node* node, const SourceConfig& source,
                      std::vector<AggregateConfig>* out);

}  // namespace floe::ingest::config_internal
