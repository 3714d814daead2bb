// PipelineStatus as text (`floe status`) and as JSON (`floe status --json`,
// GET /api/status, the dashboard's data).
//
// Contract: the JSON keys are stable (docs/operations.md lists them); times
// are ISO 8601 UTC strings plus *_ms epoch numbers where a script wants to
// compute; snapshot ids are strings (they do not fit a JavaScript number);
// absent values are null. Invalid UTF-8 in file names and reasons is
// replaced when dumped (StatusJsonText), never an exception. The text is a
// table per section, for a person. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "observability/pipeline_status.h"

namespace floe::observability {

nlohmann::ordered_json StatusJson(const PipelineStatus& status);
// StatusJson dumped on one line.
std::string StatusJsonText(const PipelineStatus& status);
std::string FormatStatusText(const PipelineStatus& status);

}  // namespace floe::observability
