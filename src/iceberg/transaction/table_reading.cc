#include "iceberg/transaction/table_reading.h"

#include "iceberg/manifest/manifest_io.h"

namespace floe::iceberg {

Result<Type> PartitionTypeForSpec(const TableMetadata& metadata, int32_t spec_id) {
  const PartitionSpec* spec = metadata.SpecById(spec_id);
  if (spec == nullptr) {
    return Status::Corruption("partition spec " + std::to_string(spec_id) + " is not in the table metadata");
  }
  Status first_error;
  if (const Schema* current = metadata.CurrentSchema()) {
    auto type = spec->PartitionType(*current);
    if (type.ok()) return type;
    first_error = type.status();
  }
  for (auto it = metadata.schemas.rbegin(); it != metadata.schemas.rend(); ++it) {
    auto type = spec->PartitionType(*it);
    if (type.ok()) return type;
  }
  if (first_error.ok()) first_error = Status::Corruption("table has no schema");
  return first_error.WithContext("partition spec " + std::to_string(spec_id));
}

Result<std::vector<ManifestEntry>> LiveEntries(FileIO& io, const TableMetadata& metadata,
                                               const Snapshot& snapshot) {
  if (snapshot.manifest_list.empty()) {
    return Status::NotSupported("snapshot " + std::to_string(snapshot.snapshot_id) +
                                " lists manifests inline (v1); only manifest lists are supported");
  }
  FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(io, snapshot.manifest_list));
  std::vector<ManifestEntry> live;
  for (const auto& manifest : manifests) {
    FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(metadata, manifest.partition_spec_id));
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, manifest, partition_type));
    for (auto& e : entries) {
      if (e.status != ManifestEntryStatus::kDeleted) live.push_back(std::move(e));
    }
  }
  return live;
}

}  // namespace floe::iceberg
