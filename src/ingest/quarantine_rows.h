// The rows of <table>__quarantine: change rows that failed a quarantine
// expectation ([[expectations]] action = "quarantine"), kept with the batch
// that read them (side_tables.h commits them exactly once with it).
//
// Contract: one row per quarantined change row, its columns
//   _floe_failed_expectations  list<string>, every expectation the row failed
//                              (quarantine ones and any other), in the
//                              table's expectation order
//   _floe_source_file          string, the unit's uri (a file, a stream range)
//   _floe_source_row           long, the 0-based row in that unit
// then the row image's columns as the change convention gives them (before
// the transform: the row as it arrived). An image column named like one of
// the three is left out. The side table's schema evolves with the images
// like any table's (new columns added, widenings promoted).
#pragma once

#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/change_set.h"
#include "ingest/config/config.h"

namespace floe::ingest {

inline constexpr const char* kQuarantineFailedExpectations = "_floe_failed_expectations";

// `rows.images` row i is the row `rows.rows[i]` of unit `uri`.
Result<RecordBatch> QuarantineRowsOf(const std::string& uri, QuarantinedRows rows,
                                     const std::vector<ExpectationConfig>& expectations);

}  // namespace floe::ingest
