#include "ingest/format/avro_file_format.h"

#include "formats/avro/avro_file_reader.h"
#include "formats/unit_bytes.h"

namespace floe::ingest {

Result<std::unique_ptr<formats::ChunkedReader>> AvroFileFormat::Open(std::shared_ptr<InputFile> file,
                                                                     const Schema& /*table_columns*/) const {
  FLOE_ASSIGN_OR_RETURN(auto reader, avro::AvroFileReader::Open(std::move(file), {}));
  return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
}

bool AvroFileFormat::IsDataFile(std::string_view path) const {
  return any_name_ || formats::DataExtension(path) == "avro";
}

}  // namespace floe::ingest
