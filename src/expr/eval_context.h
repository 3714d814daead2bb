// What an evaluation knows beyond the batch: the clock values and where each
// row came from.
//
// Contract: the caller fills an EvalContext per batch. ingestion_time() and
// current_timestamp are constants of the batch (microseconds since the epoch,
// UTC). source_file() is `source_file_column` (a string column of the batch's
// length) when set, else `source_file`; source_row() is `source_row_column`
// (an int64 column of the batch's length) when set, else first_source_row +
// the row's index in the batch. The context is read-only during evaluation.
#pragma once

#include <cstdint>
#include <string>

#include "columnar/column.h"

namespace floe::expr {

struct EvalContext {
  int64_t ingestion_time_us = 0;
  int64_t current_timestamp_us = 0;
  std::string source_file;
  const Column* source_file_column = nullptr;
  int64_t first_source_row = 0;
  const Column* source_row_column = nullptr;
};

}  // namespace floe::expr
