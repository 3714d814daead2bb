#include "iceberg/transaction/snapshot_producer.h"

#include <algorithm>
#include <charconv>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/snapshot_ancestry.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"
#include "iceberg/transaction/table_reading.h"

namespace floe::iceberg {

namespace {

// Running counts for one snapshot summary.
struct FileCounts {
  int64_t data_files = 0;
  int64_t records = 0;
  int64_t files_size = 0;
  int64_t delete_files = 0;
  int64_t position_delete_files = 0;
  int64_t equality_delete_files = 0;
  int64_t deletion_vectors = 0;
  int64_t position_deletes = 0;
  int64_t equality_deletes = 0;

  void Add(const DataFile& f) {
    // As Java's ScanTaskUtil.contentSizeInBytes: a deletion vector counts its blob, not the whole
    // Puffin file it shares with other vectors.
    files_size +=
        IsDeletionVector(f) && f.content_size_in_bytes ? *f.content_size_in_bytes : f.file_size_in_bytes;
    switch (f.content) {
      case DataFileContent::kData:
        ++data_files;
        records += f.record_count;
        break;
      case DataFileContent::kPositionDeletes:
        ++delete_files;
        position_deletes += f.record_count;
        if (IsDeletionVector(f)) {
          ++deletion_vectors;
        } else {
          ++position_delete_files;
        }
        break;
      case DataFileContent::kEqualityDeletes:
        ++delete_files;
        ++equality_delete_files;
        equality_deletes += f.record_count;
        break;
    }
  }
};

std::optional<int64_t> SummaryLong(const Snapshot* snapshot, const char* key) {
  if (snapshot == nullptr) return 0;  // an empty table has totals of zero
  auto it = snapshot->summary.find(key);
  if (it == snapshot->summary.end()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (ec != std::errc() || ptr != it->second.data() + it->second.size()) return std::nullopt;
  return value;
}

void PutNonZero(std::map<std::string, std::string>& out, const char* key, int64_t value) {
  if (value != 0) out[key] = std::to_string(value);
}

// total = parent's total + added - removed; omitted when the parent's total is unknown.
void PutTotal(std::map<std::string, std::string>& out, const Snapshot* parent, const char* key, int64_t added,
              int64_t removed) {
  std::optional<int64_t> base = SummaryLong(parent, key);
  if (base) out[key] = std::to_string(std::max<int64_t>(0, *base + added - removed));
}

std::string PartitionKey(const DataFile& f) {
  std::string key = std::to_string(f.spec_id);
  for (const auto& value : f.partition) {
    key += '\x1f';
    key += value.ToString();
  }
  return key;
}

}  // namespace

void CarrySummaryEntries(const std::map<std::string, std::string>& parent,
                         const std::vector<std::string>& prefixes,
                         std::map<std::string, std::string>* summary) {
  for (const std::string& prefix : prefixes) {
    for (auto it = parent.lower_bound(prefix); it != parent.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      summary->emplace(it->first, it->second);  // what the commit sets itself wins
    }
  }
}

SnapshotProducer::SnapshotProducer(Table& table)
    : table_(table),
      starting_snapshot_id_(table.metadata().current_snapshot_id),
      starting_schema_id_(table.metadata().current_schema_id),
      starting_last_column_id_(table.metadata().last_column_id),
      snapshot_id_(NewSnapshotId()),
      commit_uuid_(NewUuidV4()) {}

std::string SnapshotProducer::NewManifestPath(const TableMetadata& base) {
  return base.location + "/metadata/" + commit_uuid_ + "-m" + std::to_string(manifest_counter_++) + ".avro";
}

void SnapshotProducer::DeleteQuietly(const std::vector<std::string>& paths) {
  // Best effort: a leftover unreferenced file is harmless, a failed cleanup must not hide the commit error.
  for (const auto& path : paths) (void)table_.io().Delete(path);
}

void SnapshotProducer::SetNewSchema(Schema evolved) {
  const Schema* starting = table_.metadata().SchemaById(starting_schema_id_);
  if (starting != nullptr && starting->fields == evolved.fields &&
      starting->identifier_field_ids == evolved.identifier_field_ids) {
    new_schema_.reset();
    invalid_schema_ = Status::OK();
    return;
  }
  Status valid = evolved.Validate();
  invalid_schema_ = valid.ok() ? valid : valid.WithContext("evolved schema");
  new_schema_ = std::move(evolved);
}

Result<Schema> SnapshotProducer::SnapshotSchema(const TableMetadata& base) const {
  if (!new_schema_) {
    const Schema* current = base.CurrentSchema();
    if (current == nullptr) return Status::Corruption("table has no current schema");
    return *current;
  }
  FLOE_RETURN_IF_ERROR(invalid_schema_);
  if (base.current_schema_id != starting_schema_id_ || base.last_column_id != starting_last_column_id_) {
    return ValidationFailed(
        "the table schema changed concurrently (current schema id " + std::to_string(starting_schema_id_) +
        " -> " + std::to_string(base.current_schema_id) + ", last-column-id " +
        std::to_string(starting_last_column_id_) + " -> " + std::to_string(base.last_column_id) +
        "); the files of this commit were written with the field ids of the old schema");
  }
  // The id the catalog's builder will give the schema (it reuses an identical schema's id).
  TableMetadataBuilder builder(base);
  FLOE_ASSIGN_OR_RETURN(int32_t schema_id, builder.AddSchema(*new_schema_));
  Schema schema = *new_schema_;
  schema.schema_id = schema_id;
  return schema;
}

Status SnapshotProducer::WriteAddedManifests(const TableMetadata& base, const Schema& schema_ref) {
  if (added_manifests_written_) {
    // Without a schema change the first attempt's manifests stay valid; with one they must name
    // the schema id this attempt commits (it moves only if another schema was added meanwhile).
    if (!new_schema_ || added_manifests_schema_id_ == schema_ref.schema_id) return Status::OK();
    std::vector<std::string> stale;
    for (const auto& m : added_manifests_) stale.push_back(m.manifest_path);
    DeleteQuietly(stale);
    added_manifests_.clear();
    added_manifests_written_ = false;
  }
  const Schema* schema = &schema_ref;
  // One manifest per (spec, content): data and deletes may not share a manifest.
  std::map<std::pair<int32_t, ManifestContent>, std::vector<const DataFile*>> groups;
  for (const auto& f : added_files_) {
    if (base.SpecById(f.spec_id) == nullptr) {
      return Status::InvalidArgument("file " + f.file_path + ": partition spec " + std::to_string(f.spec_id) +
                                     " is not in the table");
    }
    if (f.content != DataFileContent::kData && base.format_version < 2) {
      return Status::InvalidArgument("file " + f.file_path + ": delete files need format version 2 or later");
    }
    if (base.format_version >= 3 && f.content == DataFileContent::kPositionDeletes && !IsDeletionVector(f)) {
      return Status::InvalidArgument(
          "file " + f.file_path +
          ": format version 3 tables take deletion vectors, not position delete files");
    }
    const ManifestContent content =
        f.content == DataFileContent::kData ? ManifestContent::kData : ManifestContent::kDeletes;
    groups[{f.spec_id, content}].push_back(&f);
  }
  std::vector<ManifestFile> written;
  for (const auto& [key, files] : groups) {
    ManifestWriterOptions options;
    options.format_version = base.format_version;
    options.content = key.second;
    options.snapshot_id = snapshot_id_;
    const std::string path = NewManifestPath(base);
    auto writer = ManifestWriter::Open(table_.io(), path, *schema, *base.SpecById(key.first), options);
    Status status = writer.ok() ? Status::OK() : writer.status();
    for (size_t i = 0; status.ok() && i < files.size(); ++i) status = (*writer)->Add(*files[i]);
    Result<ManifestFile> manifest = status.ok() ? (*writer)->Finish() : Result<ManifestFile>(status);
    if (!manifest.ok()) {
      if (writer.ok()) (*writer)->Abort();
      for (const auto& m : written) (void)table_.io().Delete(m.manifest_path);
      return manifest.status().WithContext("writing manifest " + path);
    }
    written.push_back(std::move(*manifest));
  }
  added_manifests_ = std::move(written);
  added_manifests_written_ = true;
  added_manifests_schema_id_ = schema_ref.schema_id;
  return Status::OK();
}

Status SnapshotProducer::ValidateConcurrentCommits(const TableMetadata& base) {
  if (must_stay_live_.empty() && no_new_deletes_for_.empty()) return Status::OK();
  // Snapshots committed since this action started: the current one back to (excluding) the start.
  for (const Snapshot* s : CurrentAncestors(base)) {
    if (starting_snapshot_id_ && s->snapshot_id == *starting_snapshot_id_) break;
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(table_.io(), s->manifest_list));
    for (const auto& manifest : manifests) {
      if (manifest.added_snapshot_id != s->snapshot_id) continue;
      FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(base, manifest.partition_spec_id));
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(table_.io(), manifest, partition_type));
      for (const auto& e : entries) {
        if (e.snapshot_id != s->snapshot_id) continue;
        const DataFile& f = e.data_file;
        if (e.status == ManifestEntryStatus::kDeleted && f.content == DataFileContent::kData &&
            must_stay_live_.count(f.file_path)) {
          return ValidationFailed("data file " + f.file_path + " was removed by concurrent snapshot " +
                                  std::to_string(s->snapshot_id));
        }
        if (e.status == ManifestEntryStatus::kAdded && f.content != DataFileContent::kData &&
            f.referenced_data_file && no_new_deletes_for_.count(*f.referenced_data_file)) {
          return ValidationFailed("concurrent snapshot " + std::to_string(s->snapshot_id) +
                                  " added delete file " + f.file_path + " for data file " +
                                  *f.referenced_data_file);
        }
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateOneVectorPerDataFile(const TableMetadata& base,
                                                      const std::vector<ManifestFile>& parent_manifests) {
  if (base.format_version < 3) return Status::OK();
  std::set<std::string> targets;
  for (const auto& f : added_files_) {
    if (!IsDeletionVector(f) || !f.referenced_data_file) continue;
    if (!targets.insert(*f.referenced_data_file).second) {
      return Status::InvalidArgument("two deletion vectors added for data file " + *f.referenced_data_file);
    }
  }
  if (targets.empty()) return Status::OK();
  for (const auto& manifest : parent_manifests) {
    if (manifest.content != ManifestContent::kDeletes) continue;
    if (manifest.added_files_count + manifest.existing_files_count == 0 && manifest.deleted_files_count > 0) {
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(base, manifest.partition_spec_id));
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(table_.io(), manifest, partition_type));
    for (const auto& e : entries) {
      const DataFile& f = e.data_file;
      if (e.status == ManifestEntryStatus::kDeleted || !IsDeletionVector(f) || !f.referenced_data_file ||
          !targets.count(*f.referenced_data_file)) {
        continue;
      }
      if (removed_paths_.count(f.file_path) ||
          (f.content_offset && removed_vectors_.count({f.file_path, *f.content_offset}))) {
        continue;
      }
      return Status::InvalidArgument("data file " + *f.referenced_data_file +
                                     " already has deletion vector " + f.file_path +
                                     "; a new vector must replace it in the same commit (RemoveDeletes)");
    }
  }
  return Status::OK();
}

Result<SnapshotProducer::PreparedAttempt> SnapshotProducer::PrepareAttempt(const LoadedTable& loaded) {
  const TableMetadata& base = loaded.metadata;
  ++attempt_;
  if (base.SnapshotById(snapshot_id_) != nullptr) {
    return Status::Internal("snapshot id " + std::to_string(snapshot_id_) + " already exists in the table");
  }
  if (require_unchanged_parent_ && base.current_snapshot_id != starting_snapshot_id_) {
    return ValidationFailed("the table's current snapshot moved from " +
                            std::to_string(starting_snapshot_id_.value_or(-1)) + " to " +
                            std::to_string(base.current_snapshot_id.value_or(-1)) +
                            " since this commit was prepared, and it is committed with what was computed "
                            "against the old one");
  }
  FLOE_RETURN_IF_ERROR(ValidateAgainst(base));
  FLOE_ASSIGN_OR_RETURN(Schema snapshot_schema, SnapshotSchema(base));
  FLOE_RETURN_IF_ERROR(ValidateConcurrentCommits(base));
  FLOE_RETURN_IF_ERROR(WriteAddedManifests(base, snapshot_schema));

  const Snapshot* parent = base.CurrentSnapshot();
  std::vector<ManifestFile> parent_manifests;
  if (parent != nullptr) {
    FLOE_ASSIGN_OR_RETURN(parent_manifests, ReadManifestList(table_.io(), parent->manifest_list));
  }
  FLOE_RETURN_IF_ERROR(ValidateOneVectorPerDataFile(base, parent_manifests));

  FileCounts added;
  FileCounts removed;
  std::set<std::string> changed_partitions;
  for (const auto& f : added_files_) {
    added.Add(f);
    changed_partitions.insert(PartitionKey(f));
  }

  std::vector<std::string> attempt_files;  // unreferenced if this attempt does not commit
  auto fail = [&](const Status& status) -> Status {
    if (status.kind() != ErrorKind::kCommitStateUnknown) DeleteQuietly(attempt_files);
    return status;
  };

  std::vector<ManifestFile> manifests = added_manifests_;
  std::set<std::string> found;
  std::set<std::pair<std::string, int64_t>> found_vectors;
  std::map<std::string, int> vectors_removed_by_path;
  std::set<std::string> removed_data_paths;
  // Rewritten manifests keep the schema their entries were written under.
  const Schema* schema = base.CurrentSchema();
  // When only delete files are removed, no data manifest needs reading.
  const bool removes_data = removed_paths_.size() > removed_delete_paths_.size();
  for (int pass = 0; pass < 2; ++pass) {
    // Pass 0 handles data manifests, pass 1 delete manifests, so deletes of removed data files are known.
    for (const auto& manifest : parent_manifests) {
      const bool is_data = manifest.content == ManifestContent::kData;
      if (is_data != (pass == 0)) continue;
      if (manifest.added_files_count + manifest.existing_files_count == 0 &&
          manifest.deleted_files_count > 0) {
        continue;  // only DELETED entries: nothing live to carry
      }
      if (is_data && !removes_data) {
        manifests.push_back(manifest);
        continue;
      }
      if (removed_paths_.empty() && removed_vectors_.empty() &&
          !(remove_dangling_deletes_ && !removed_data_paths.empty())) {
        manifests.push_back(manifest);
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(base, manifest.partition_spec_id));
      auto entries = ReadManifest(table_.io(), manifest, partition_type);
      if (!entries.ok()) return fail(entries.status());
      auto is_removed = [&](const ManifestEntry& e) {
        if (e.status == ManifestEntryStatus::kDeleted) return false;
        const DataFile& f = e.data_file;
        if (removed_paths_.count(f.file_path)) {
          return f.content != DataFileContent::kData || !removed_delete_paths_.count(f.file_path);
        }
        if (!removed_vectors_.empty() && IsDeletionVector(f) && f.content_offset &&
            removed_vectors_.count({f.file_path, *f.content_offset})) {
          return true;
        }
        return remove_dangling_deletes_ && f.content != DataFileContent::kData && f.referenced_data_file &&
               removed_data_paths.count(*f.referenced_data_file) > 0;
      };
      if (std::none_of(entries->begin(), entries->end(), is_removed)) {
        manifests.push_back(manifest);
        continue;
      }
      const PartitionSpec* spec = base.SpecById(manifest.partition_spec_id);
      if (spec == nullptr || schema == nullptr) {
        return fail(Status::Corruption("manifest " + manifest.manifest_path + ": partition spec " +
                                       std::to_string(manifest.partition_spec_id) + " is not in the table"));
      }
      ManifestWriterOptions options;
      options.format_version = base.format_version;
      options.content = manifest.content;
      options.snapshot_id = snapshot_id_;
      const std::string path = NewManifestPath(base);
      auto writer = ManifestWriter::Open(table_.io(), path, *schema, *spec, options);
      if (!writer.ok()) return fail(writer.status());
      Status status;
      for (const auto& e : *entries) {
        if (!status.ok()) break;
        if (e.status == ManifestEntryStatus::kDeleted) continue;
        if (is_removed(e)) {
          ManifestEntry deleted = e;
          deleted.status = ManifestEntryStatus::kDeleted;
          deleted.snapshot_id = snapshot_id_;
          found.insert(e.data_file.file_path);
          if (IsDeletionVector(e.data_file)) {
            if (e.data_file.content_offset)
              found_vectors.insert({e.data_file.file_path, *e.data_file.content_offset});
            if (removed_delete_paths_.count(e.data_file.file_path))
              ++vectors_removed_by_path[e.data_file.file_path];
          }
          if (e.data_file.content == DataFileContent::kData) removed_data_paths.insert(e.data_file.file_path);
          removed.Add(e.data_file);
          changed_partitions.insert(PartitionKey(e.data_file));
          status = (*writer)->Delete(deleted);
        } else {
          ManifestEntry existing = e;
          existing.status = ManifestEntryStatus::kExisting;
          status = (*writer)->Existing(existing);
        }
      }
      Result<ManifestFile> rewritten = status.ok() ? (*writer)->Finish() : Result<ManifestFile>(status);
      if (!rewritten.ok()) {
        (*writer)->Abort();
        return fail(rewritten.status().WithContext("rewriting manifest " + manifest.manifest_path));
      }
      attempt_files.push_back(path);
      manifests.push_back(std::move(*rewritten));
    }
  }
  for (const auto& [path, count] : vectors_removed_by_path) {
    if (count > 1) {
      return fail(Status::InvalidArgument(
          "Puffin file " + path + " holds " + std::to_string(count) +
          " live deletion vectors; remove them one by one (path and content_offset), not by path"));
    }
  }
  for (const auto& [path, offset] : removed_vectors_) {
    if (!found_vectors.count({path, offset})) {
      return fail(ValidationFailed("deletion vector " + path + " at offset " + std::to_string(offset) +
                                   " is not live in the table"));
    }
  }
  for (const auto& path : removed_paths_) {
    if (!found.count(path)) {
      const char* what = removed_delete_paths_.count(path) ? "delete file " : "file ";
      return fail(ValidationFailed(what + path + " is not live in the table"));
    }
  }

  Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id_;
  if (parent != nullptr) snapshot.parent_snapshot_id = parent->snapshot_id;
  snapshot.sequence_number = base.format_version >= 2 ? base.last_sequence_number + 1 : 0;
  if (fixed_timestamp_ms_) {
    if (parent != nullptr && parent->timestamp_ms > *fixed_timestamp_ms_) {
      return fail(ValidationFailed("the parent snapshot " + std::to_string(parent->snapshot_id) + " (at " +
                                   std::to_string(parent->timestamp_ms) +
                                   " ms) is newer than this commit's fixed time " +
                                   std::to_string(*fixed_timestamp_ms_) + " ms"));
    }
    snapshot.timestamp_ms = *fixed_timestamp_ms_;
  } else {
    snapshot.timestamp_ms = std::max(CurrentTimeMillis(), parent != nullptr ? parent->timestamp_ms : 0);
  }
  snapshot.schema_id = snapshot_schema.schema_id;
  snapshot.manifest_list = base.location + "/metadata/snap-" + std::to_string(snapshot_id_) + "-" +
                           std::to_string(attempt_) + "-" + commit_uuid_ + ".avro";
  auto& s = snapshot.summary;
  s = extra_summary_;
  if (parent != nullptr) CarrySummaryEntries(parent->summary, carried_prefixes_, &s);
  s["operation"] = operation();
  PutNonZero(s, summary::kAddedDataFiles, added.data_files);
  PutNonZero(s, summary::kAddedRecords, added.records);
  PutNonZero(s, summary::kAddedFilesSize, added.files_size);
  PutNonZero(s, summary::kAddedDeleteFiles, added.delete_files);
  PutNonZero(s, summary::kAddedPositionDeleteFiles, added.position_delete_files);
  PutNonZero(s, summary::kAddedEqualityDeleteFiles, added.equality_delete_files);
  PutNonZero(s, summary::kAddedDeletionVectors, added.deletion_vectors);
  PutNonZero(s, summary::kAddedPositionDeletes, added.position_deletes);
  PutNonZero(s, summary::kAddedEqualityDeletes, added.equality_deletes);
  PutNonZero(s, summary::kDeletedDataFiles, removed.data_files);
  PutNonZero(s, summary::kDeletedRecords, removed.records);
  PutNonZero(s, summary::kRemovedFilesSize, removed.files_size);
  PutNonZero(s, summary::kRemovedDeleteFiles, removed.delete_files);
  PutNonZero(s, summary::kRemovedPositionDeleteFiles, removed.position_delete_files);
  PutNonZero(s, summary::kRemovedEqualityDeleteFiles, removed.equality_delete_files);
  PutNonZero(s, summary::kRemovedDeletionVectors, removed.deletion_vectors);
  PutNonZero(s, summary::kRemovedPositionDeletes, removed.position_deletes);
  PutNonZero(s, summary::kRemovedEqualityDeletes, removed.equality_deletes);
  PutTotal(s, parent, summary::kTotalRecords, added.records, removed.records);
  PutTotal(s, parent, summary::kTotalDataFiles, added.data_files, removed.data_files);
  PutTotal(s, parent, summary::kTotalDeleteFiles, added.delete_files, removed.delete_files);
  PutTotal(s, parent, summary::kTotalPositionDeletes, added.position_deletes, removed.position_deletes);
  PutTotal(s, parent, summary::kTotalEqualityDeletes, added.equality_deletes, removed.equality_deletes);
  PutTotal(s, parent, summary::kTotalFilesSize, added.files_size, removed.files_size);
  s[summary::kChangedPartitionCount] = std::to_string(changed_partitions.size());

  ManifestListWriterOptions list_options;
  list_options.format_version = base.format_version;
  list_options.snapshot_id = snapshot_id_;
  list_options.parent_snapshot_id = snapshot.parent_snapshot_id;
  list_options.sequence_number = snapshot.sequence_number;
  if (base.format_version >= 3) {
    // Row lineage: the manifest-list writer numbers data manifests without a first_row_id from here.
    int64_t added_rows = 0;
    for (const auto& m : manifests) {
      if (m.content == ManifestContent::kData && !m.first_row_id) {
        added_rows += m.added_rows_count + m.existing_rows_count;
      }
    }
    snapshot.first_row_id = base.next_row_id.value_or(0);
    snapshot.added_rows = added_rows;
    list_options.first_row_id = snapshot.first_row_id;
  }
  auto list_length = WriteManifestList(table_.io(), snapshot.manifest_list, manifests, list_options);
  if (!list_length.ok()) return fail(list_length.status().WithContext("writing " + snapshot.manifest_list));
  attempt_files.push_back(snapshot.manifest_list);

  SnapshotRef main_ref = SnapshotRef::Branch(snapshot_id_);
  if (auto it = base.refs.find(kMainBranch); it != base.refs.end()) {
    main_ref = it->second;
    main_ref.snapshot_id = snapshot_id_;
  }
  std::vector<TableRequirement> requirements = {
      requirement::AssertTableUuid{base.table_uuid},
      requirement::AssertRefSnapshotId{kMainBranch, base.current_snapshot_id},
  };
  std::vector<TableUpdate> updates;
  if (new_schema_) {
    // The field ids of this commit's files were assigned from the starting schema state.
    requirements.push_back(requirement::AssertCurrentSchemaId{starting_schema_id_});
    requirements.push_back(requirement::AssertLastAssignedFieldId{starting_last_column_id_});
    updates.push_back(
        update::AddSchema{snapshot_schema, std::max(base.last_column_id, snapshot_schema.HighestFieldId())});
    updates.push_back(update::SetCurrentSchema{-1});
  }
  updates.push_back(update::AddSnapshot{snapshot});
  updates.push_back(update::SetSnapshotRef{kMainBranch, main_ref});
  return PreparedAttempt{std::move(requirements), std::move(updates), std::move(snapshot),
                         std::move(attempt_files)};
}

void SnapshotProducer::AbandonAttempt(const PreparedAttempt& attempt, const Status& why) {
  if (why.kind() != ErrorKind::kCommitStateUnknown) DeleteQuietly(attempt.files);
}

void SnapshotProducer::AbandonCommit(const Status& why) {
  if (why.kind() == ErrorKind::kCommitStateUnknown) return;
  std::vector<std::string> written;
  for (const auto& m : added_manifests_) written.push_back(m.manifest_path);
  DeleteQuietly(written);
  added_manifests_.clear();
  added_manifests_written_ = false;
}

void SnapshotProducer::FinishCommit(PreparedAttempt attempt, LoadedTable committed) {
  committed_ = std::move(attempt.snapshot);
  table_.SetCurrent(std::move(committed));
}

Result<LoadedTable> SnapshotProducer::CommitAttempt(const LoadedTable& base) {
  FLOE_ASSIGN_OR_RETURN(PreparedAttempt attempt, PrepareAttempt(base));
  auto committed = table_.ops().Commit(attempt.requirements, attempt.updates);
  if (!committed.ok()) {
    AbandonAttempt(attempt, committed.status());
    return committed.status();
  }
  committed_ = std::move(attempt.snapshot);
  return committed;
}

Result<Snapshot> SnapshotProducer::Commit() {
  if (committed_) return Status::InvalidArgument("this change was already committed");
  auto result = CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(),
                                [this](const LoadedTable& base) { return CommitAttempt(base); });
  if (!result.ok()) {
    AbandonCommit(result.status());
    return result.status();
  }
  table_.SetCurrent(std::move(*result));
  return *committed_;
}

}  // namespace floe::iceberg
