#include "iceberg/writer/position_delete_writer.h"

#include <algorithm>

namespace floe::iceberg {

Schema PositionDeleteSchema() {
  Schema schema;
  schema.fields = {
      MakeNestedField(kDeleteFilePathFieldId, "file_path", PrimitiveType(TypeKind::kString), true),
      MakeNestedField(kDeletePosFieldId, "pos", PrimitiveType(TypeKind::kLong), true)};
  return schema;
}

Result<std::unique_ptr<PositionDeleteWriter>> PositionDeleteWriter::Open(FileIO& io, std::string path,
                                                                         std::vector<Literal> partition,
                                                                         DataFileWriterOptions options) {
  options.untruncated_bound_ids.insert(kDeleteFilePathFieldId);
  options.sort_order_id.reset();  // delete files carry no sort order
  return std::unique_ptr<PositionDeleteWriter>(
      new PositionDeleteWriter(io, std::move(path), std::move(partition), std::move(options)));
}

Status PositionDeleteWriter::Delete(std::string_view data_file_path, int64_t position) {
  if (closed_) return Status::InvalidArgument("position delete file " + path_ + " is closed");
  if (position < 0) {
    return Status::InvalidArgument("position delete of row " + std::to_string(position) + " in " +
                                   std::string(data_file_path) + ": positions start at 0");
  }
  deletes_.emplace_back(std::string(data_file_path), position);
  return Status::OK();
}

Result<DataFile> PositionDeleteWriter::Close() {
  if (closed_) return Status::InvalidArgument("position delete file " + path_ + " is closed");
  closed_ = true;
  if (deletes_.empty()) return Status::InvalidArgument("position delete file " + path_ + " has no deletes");
  std::sort(deletes_.begin(), deletes_.end());
  deletes_.erase(std::unique(deletes_.begin(), deletes_.end()), deletes_.end());

  const Schema schema = PositionDeleteSchema();
  FLOE_ASSIGN_OR_RETURN(::floe::Schema floe_schema, ToFloeSchema(schema));
  FLOE_ASSIGN_OR_RETURN(auto writer, DataFileWriter::Open(io_, path_, schema, partition_, options_));
  constexpr size_t kRowsPerBatch = 65536;
  for (size_t begin = 0; begin < deletes_.size(); begin += kRowsPerBatch) {
    const size_t end = std::min(deletes_.size(), begin + kRowsPerBatch);
    RecordBatch batch;
    batch.schema = floe_schema;
    batch.num_rows = static_cast<int64_t>(end - begin);
    batch.columns = {MakeEmptyColumn(floe_schema[0].type), MakeEmptyColumn(floe_schema[1].type)};
    for (size_t i = begin; i < end; ++i) {
      batch.columns[0].AppendBytes(deletes_[i].first);
      batch.columns[1].AppendValue<int64_t>(deletes_[i].second);
    }
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
  }
  FLOE_ASSIGN_OR_RETURN(DataFile file, writer->Close());
  file.content = DataFileContent::kPositionDeletes;
  if (deletes_.front().first == deletes_.back().first) file.referenced_data_file = deletes_.front().first;
  deletes_.clear();
  return file;
}

}  // namespace floe::iceberg
