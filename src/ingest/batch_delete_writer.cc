#include "ingest/batch_delete_writer.h"

#include <algorithm>
#include <memory>

#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/transaction/snapshot_producer.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/writer/position_delete_writer.h"

namespace floe::ingest {

namespace {

std::string TableDataDirectory(const iceberg::TableMetadata& metadata) {
  std::string location = metadata.location;
  while (!location.empty() && location.back() == '/') location.pop_back();
  return location + "/data/";
}

// Groups data files by spec and exact partition tuple (Literal::ToString is
// unambiguous for the kinds partition values take).
std::string PartitionGroupKey(const iceberg::DataFile& file) {
  std::string key = std::to_string(file.spec_id);
  for (const iceberg::Literal& value : file.partition) key += "|" + value.ToString();
  return key;
}

Status WritePositionDeleteFiles(FileIO& io, const iceberg::TableMetadata& metadata,
                                const std::map<std::string, const iceberg::DataFile*>& targets,
                                const std::map<std::string, std::vector<int64_t>>& deletes,
                                const BatchDeleteOptions& options, BatchDeleteFiles* out) {
  std::map<std::string, std::vector<const std::string*>> groups;
  for (const auto& [path, positions] : deletes) {
    groups[PartitionGroupKey(*targets.at(path))].push_back(&path);
  }
  int counter = 0;
  for (const auto& [group_key, paths] : groups) {
    const iceberg::DataFile& first = *targets.at(*paths.front());
    const iceberg::PartitionSpec* spec = metadata.SpecById(first.spec_id);
    if (spec == nullptr) {
      return Status::Corruption("data file " + first.file_path + " has unknown partition spec " +
                                std::to_string(first.spec_id));
    }
    std::string directory = TableDataDirectory(metadata);
    if (!spec->fields.empty()) {
      FLOE_ASSIGN_OR_RETURN(std::string partition_path, spec->PartitionPath(first.partition));
      directory += partition_path + "/";
    }
    const std::string path =
        directory + options.file_prefix + "-deletes-" + std::to_string(counter++) + ".parquet";
    iceberg::DataFileWriterOptions file_options = options.file;
    file_options.spec_id = first.spec_id;
    FLOE_ASSIGN_OR_RETURN(auto writer,
                          iceberg::PositionDeleteWriter::Open(io, path, first.partition, file_options));
    for (const std::string* data_path : paths) {
      for (int64_t position : deletes.at(*data_path))
        FLOE_RETURN_IF_ERROR(writer->Delete(*data_path, position));
    }
    out->written_paths.push_back(path);
    FLOE_ASSIGN_OR_RETURN(iceberg::DataFile written, writer->Close());
    out->added.push_back(std::move(written));
  }
  return Status::OK();
}

Status WriteDeletionVectors(FileIO& io, const iceberg::TableMetadata& metadata,
                            const std::map<std::string, const iceberg::DataFile*>& targets,
                            const std::map<std::string, const iceberg::DataFile*>& current_vectors,
                            std::map<std::string, std::vector<int64_t>>& deletes,
                            const BatchDeleteOptions& options, BatchDeleteFiles* out) {
  const std::string path = TableDataDirectory(metadata) + options.file_prefix + "-deletes.puffin";
  FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::DeletionVectorWriter::Open(io, path));
  out->written_paths.push_back(path);
  for (auto& [data_path, positions] : deletes) {
    auto current = current_vectors.find(data_path);
    if (current != current_vectors.end()) {
      auto existing = iceberg::ReadDeletionVector(io, *current->second);
      if (!existing.ok()) {
        return existing.status().WithContext("deletion vector of " + data_path + " in " +
                                             current->second->file_path);
      }
      positions.insert(positions.end(), existing->begin(), existing->end());
      out->replaced.push_back(*current->second);
    }
    const iceberg::DataFile& target = *targets.at(data_path);
    FLOE_RETURN_IF_ERROR(writer->Add(data_path, std::move(positions), target.partition, target.spec_id));
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> vectors, writer->Close());
  for (iceberg::DataFile& vector : vectors) out->added.push_back(std::move(vector));
  return Status::OK();
}

}  // namespace

Result<BatchDeleteFiles> WriteBatchDeletes(FileIO& io, const iceberg::TableMetadata& metadata,
                                           std::map<std::string, std::vector<int64_t>> deletes,
                                           const BatchDeleteOptions& options) {
  BatchDeleteFiles out;
  if (deletes.empty()) return out;
  const iceberg::Snapshot* snapshot = metadata.CurrentSnapshot();
  if (snapshot == nullptr) {
    return Status::Corruption("the key index names rows of " + deletes.begin()->first +
                              " but the table has no snapshot");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries,
                        iceberg::LiveEntries(io, metadata, *snapshot));
  std::map<std::string, const iceberg::DataFile*> targets;
  std::map<std::string, const iceberg::DataFile*> current_vectors;
  for (const iceberg::ManifestEntry& entry : entries) {
    const iceberg::DataFile& file = entry.data_file;
    if (file.content == iceberg::DataFileContent::kData) {
      if (deletes.count(file.file_path)) targets[file.file_path] = &file;
    } else if (iceberg::IsDeletionVector(file) && file.referenced_data_file &&
               deletes.count(*file.referenced_data_file)) {
      current_vectors[*file.referenced_data_file] = &file;
    }
  }
  for (auto& [path, positions] : deletes) {
    if (!targets.count(path)) {
      return Status::Corruption("the key index names rows of data file " + path +
                                ", which is not live in snapshot " + std::to_string(snapshot->snapshot_id));
    }
    out.positions += static_cast<int64_t>(positions.size());
  }
  Status written = metadata.format_version >= 3
                       ? WriteDeletionVectors(io, metadata, targets, current_vectors, deletes, options, &out)
                       : WritePositionDeleteFiles(io, metadata, targets, deletes, options, &out);
  if (!written.ok()) {
    for (const std::string& path : out.written_paths) (void)io.Delete(path);
    return written;
  }
  return out;
}

}  // namespace floe::ingest
