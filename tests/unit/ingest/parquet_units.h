// Test helper: a UnitOpener for Parquet files read through `io`, as a
// pipeline with format "parquet" (or "cda") builds it.
#pragma once

#include <memory>

#include "ingest/format/parquet_file_format.h"
#include "ingest/format/unit_opener.h"

namespace floe::ingest {

inline std::shared_ptr<UnitOpener> ParquetFiles(std::shared_ptr<FileIO> io) {
  return std::make_shared<FileUnitOpener>(std::move(io), std::make_shared<ParquetFileFormat>());
}

}  // namespace floe::ingest
