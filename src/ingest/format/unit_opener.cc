#include "ingest/format/unit_opener.h"

namespace floe::ingest {

Result<std::unique_ptr<formats::ChunkedReader>> FileUnitOpener::Open(const SourceUnit& unit) {
  if (unit.kind != UnitKind::kFile) {
    return Status::InvalidArgument(unit.uri + ": not a file; a file source cannot open it");
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> input, io_->OpenRead(unit.uri));
  return format_->Open(std::shared_ptr<InputFile>(std::move(input)));
}

}  // namespace floe::ingest
