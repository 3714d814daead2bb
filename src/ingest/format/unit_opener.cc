#include "ingest/format/unit_opener.h"

#include "ingest/format/partition_columns.h"

namespace floe::ingest {

Result<std::unique_ptr<formats::ChunkedReader>> FileUnitOpener::Open(const SourceUnit& unit,
                                                                     const Schema& table_columns) {
  if (unit.kind != UnitKind::kFile) {
    return Status::InvalidArgument(unit.uri + ": not a file; a file source cannot open it");
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> input, io_->OpenRead(unit.uri));
  FLOE_ASSIGN_OR_RETURN(
      std::unique_ptr<formats::ChunkedReader> reader,
      format_->Open(std::shared_ptr<InputFile>(std::move(input)), table_columns, unit.table));
  if (unit.partition_values.empty()) return reader;
  return WithPartitionColumns(std::move(reader), unit.uri, unit.partition_values, partition_types_);
}

}  // namespace floe::ingest
