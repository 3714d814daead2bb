// Internal to the pipeline config parser: [transform] (pipeline-wide and
// [tables.<name>.transform]) and [[expectations]] (pipeline-wide and
// [[tables.<name>.expectations]]). Every expression is syntax-checked here,
// so a typo fails the config load with the key, the expression and the
// position; binding against a table's columns happens when the table is
// ingested (ingest/transform/row_transform.h). Not for use outside
// src/ingest/config.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/config/config_section.h"

namespace floe::ingest::config_internal {

// The expression at `key`, taken as written (no ${VAR} expansion: `${` may
// be part of a string literal) and syntax-checked; unset when absent.
Result<std::optional<std::string>> Expression(SectionReader& section, const std::string& key);

// Reads a [transform] section (`label` is "[transform]" or
// "[tables.<name>.transform]"); keys absent stay unset.
Status ReadTransform(const ParseContext& context, const toml::table* table, const std::string& label,
                     TransformOverride* out);

// Reads an array of expectation tables (`key` is "expectations" or
// "tables.<name>.expectations", how errors spell it). Names must be unique
// within the array.
Status ReadExpectations(const ParseContext& context, const toml::node* node, const std::string& key,
                        std::vector<ExpectationConfig>* out);

// `over` applied to `base`: each key given replaces the base's.
TransformConfig ApplyTransformOverride(TransformConfig base, const TransformOverride& over);

// `extra` added to `base`: an expectation of the same name replaces the
// base's in place, others are appended.
std::vector<ExpectationConfig> MergeExpectations(std::vector<ExpectationConfig> base,
                                                 const std::vector<ExpectationConfig>& extra);

}  // namespace floe::ingest::config_internal
