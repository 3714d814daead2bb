// Compaction: rewrites small data files and data files with many deletes into
// files of the target size, with every delete applied, as one "replace"
// snapshot (RewriteFiles).
//
// Plan: TableScan pairs every live data file with the delete files that apply
// to it; files are grouped by (spec id, partition tuple). A group is rewritten
// when it has min_input_files small files of one size tier (smallest first,
// each at most twice the ones before it) or any file past the delete ratio
// threshold; its files stream through one rolling writer of the group's
// partition (PartitionedWriter::MakeForPartition), so a group leaves at most
// one file below the target. Delete files that applied only to
// rewritten files are removed in the same commit (deletes with a
// referenced_data_file, deletion vectors included, go with their data file
// through RewriteFiles' dangling-delete rule). In v3 tables the rewritten
// rows keep their lineage: the new files carry each row's _row_id and
// _last_updated_sequence_number (read, or inherited from the old file), and
// the DELETED entries carry their first_row_id (ReadManifest inherits it).
//
// Delete files (format v2): a data file that stays but has max_delete_files
// or more position delete files applying to it — floe writes one per commit
// that replaced or deleted some of its rows, so random updates over a big
// table give every data file one per commit — has its group's position
// delete files merged into one new file of the group's partition: their
// positions of data files that stay live (those of rewritten or removed
// files dropped), in the same replace snapshot. Rows do not move, so the
// key index needs no catch-up; readers open one delete file instead of many.
// The cost is the deletes read and written, not the table's data.
//
// Concurrency: before committing, the table is refreshed and every delete
// file added since planning that could apply to a rewritten file is a
// conflict (RewriteFiles itself only sees deletes naming their data file,
// and rows deleted by such a delete would come back in the replacements).
// Refresh, check and commit form the one phase run through the commit gate.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "columnar/column_rows.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/scan/delete_readers.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/snapshot_ancestry.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "maintenance/maintenance.h"
#include "maintenance/property_util.h"
#include "maintenance/row_sort.h"

namespace floe::maintenance {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::FileScanTask;
using iceberg::ScanFile;
using iceberg::TableMetadata;

namespace {

// An exact key of a partition tuple: spec id, then each value's kind and text.
std::string GroupKey(const DataFile& f) {
  std::string key = std::to_string(f.spec_id);
  for (const auto& value : f.partition) {
    key += '\x1f';
    key += std::to_string(static_cast<int>(value.kind));
    key += ':';
    key += value.ToString();
  }
  return key;
}

struct FilePlan {
  const FileScanTask* task = nullptr;
  int64_t deleted_rows = 0;  // known positions deleted (equality deletes not counted)
  bool small = false;
  bool delete_heavy = false;       // deleted share past delete_ratio_threshold: rewritten
  bool many_delete_files = false;  // max_delete_files or more applying: its group's deletes merge
};

struct Group {
  std::vector<FilePlan> files;
  std::vector<const FileScanTask*> selected;
  std::vector<DataFile> merged_deletes;  // position delete files merged into one
};

// Deleted positions per data file of position delete files that name several data files.
class PositionDeleteCache {
 public:
  explicit PositionDeleteCache(FileIO& io) : io_(io) {}

  Result<const std::map<std::string, std::vector<int64_t>>*> Get(const DataFile& deletes) {
    auto it = cache_.find(deletes.file_path);
    if (it == cache_.end()) {
      FLOE_ASSIGN_OR_RETURN(auto positions, iceberg::ReadPositionDeletes(io_, deletes));
      it = cache_.emplace(deletes.file_path, std::move(positions)).first;
    }
    return &it->second;
  }

 private:
  FileIO& io_;
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> cache_;
};

// Whether `deletes` deletes rows of `data` (for multi-file position deletes: names its path).
Result<bool> DeletesRowsOf(PositionDeleteCache& cache, const ScanFile& deletes, const ScanFile& data) {
  if (!iceberg::DeleteApplies(deletes, data)) return false;
  const DataFile& d = deletes.file;
  if (d.content != DataFileContent::kPositionDeletes || d.referenced_data_file) return true;
  FLOE_ASSIGN_OR_RETURN(auto positions, cache.Get(d));
  return positions->count(data.file.file_path) > 0;
}

Result<int64_t> DeletedRowCount(PositionDeleteCache& cache, const FileScanTask& task) {
  int64_t deleted = 0;
  for (const ScanFile& deletes : task.deletes) {
    const DataFile& d = deletes.file;
    if (d.content != DataFileContent::kPositionDeletes) continue;
    if (d.referenced_data_file) {
      deleted += d.record_count;
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(auto positions, cache.Get(d));
    if (auto it = positions->find(task.data.file.file_path); it != positions->end()) {
      deleted += static_cast<int64_t>(it->second.size());
    }
  }
  return deleted;
}

std::string PartitionText(const TableMetadata& metadata, const DataFile& f) {
  const iceberg::PartitionSpec* spec = metadata.SpecById(f.spec_id);
  if (spec == nullptr || spec->fields.empty()) return "";
  auto path = spec->PartitionPath(f.partition);
  return path.ok() ? *path : "?";
}

// Delete files added by snapshots after `planned_snapshot` that could apply to a rewritten file.
Status CheckNoNewDeletes(FileIO& io, const TableMetadata& now, std::optional<int64_t> planned_snapshot,
                         const std::vector<ScanFile>& rewritten) {
  for (const iceberg::Snapshot* s : iceberg::CurrentAncestors(now)) {
    if (planned_snapshot && s->snapshot_id == *planned_snapshot) return Status::OK();
    FLOE_ASSIGN_OR_RETURN(auto manifests, iceberg::ReadManifestList(io, s->manifest_list));
    for (const auto& manifest : manifests) {
      if (manifest.content != iceberg::ManifestContent::kDeletes ||
          manifest.added_snapshot_id != s->snapshot_id) {
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(iceberg::Type partition_type,
                            iceberg::PartitionTypeForSpec(now, manifest.partition_spec_id));
      FLOE_ASSIGN_OR_RETURN(auto entries, iceberg::ReadManifest(io, manifest, partition_type));
      for (const auto& e : entries) {
        if (e.status != iceberg::ManifestEntryStatus::kAdded || e.snapshot_id != s->snapshot_id) continue;
        const ScanFile deletes{e.data_file, e.sequence_number.value_or(s->sequence_number)};
        for (const ScanFile& data : rewritten) {
          if (iceberg::DeleteApplies(deletes, data)) {
            return iceberg::ValidationFailed("concurrent snapshot " + std::to_string(s->snapshot_id) +
                                             " added delete file " + e.data_file.file_path +
                                             " that may apply to rewritten data file " + data.file.file_path);
          }
        }
      }
    }
  }
  // The planned snapshot is no longer an ancestor: the table was rolled back or replaced.
  if (planned_snapshot) {
    return iceberg::ValidationFailed("snapshot " + std::to_string(*planned_snapshot) +
                                     " compaction was planned on is no longer in the current history");
  }
  return Status::OK();
}

// Writes the live rows of one group's files into new files of the group's partition.
class GroupRewriter {
 public:
  GroupRewriter(iceberg::TableScan& scan, const TableMetadata& metadata, const CompactionOptions& options,
                int64_t target_size, FileIO& io)
      : scan_(scan), metadata_(metadata), options_(options), target_size_(target_size), io_(io) {}

  Result<std::vector<DataFile>> Rewrite(const std::vector<const FileScanTask*>& files,
                                        int64_t* rows_written) {
    const DataFile& first = files.front()->data.file;
    const iceberg::PartitionSpec* spec = metadata_.SpecById(first.spec_id);
    if (spec == nullptr) {
      return Status::Corruption("data file " + first.file_path + ": partition spec " +
                                std::to_string(first.spec_id) + " is not in the table");
    }
    iceberg::RollingWriterOptions writer_options;
    writer_options.target_file_size = target_size_;
    writer_options.file.spec_id = first.spec_id;
    FLOE_ASSIGN_OR_RETURN(writer_options.file.parquet.codec, ParquetCodecFromProperties(metadata_));
    writer_options.file.parquet.compression_level = IntProperty(metadata_, kCompressionLevelProperty, 0);
    FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::PartitionedWriter::MakeForPartition(
                                           io_, metadata_.location, scan_.projected_schema(), *spec,
                                           first.partition, writer_options));
    Status status = WriteAll(*writer, files, rows_written);
    if (status.ok()) {
      auto written = writer->Close();
      if (written.ok()) return written;
      status = written.status();
    }
    writer->AbortAndDelete();
    return status;
  }

 private:
  Status WriteAll(iceberg::PartitionedWriter& writer, const std::vector<const FileScanTask*>& files,
                  int64_t* rows_written) {
    std::vector<RecordBatch> pending;  // rows waiting to be sorted
    int64_t pending_bytes = 0;
    auto flush = [&]() -> Status {
      if (pending.empty()) return Status::OK();
      FLOE_ASSIGN_OR_RETURN(RecordBatch all, ConcatBatches(pending));
      pending.clear();
      pending_bytes = 0;
      FLOE_ASSIGN_OR_RETURN(RecordBatch sorted, SortBatch(all, options_.sort_columns));
      return writer.Write(sorted);
    };
    for (const FileScanTask* task : files) {
      if (options_.stop_requested && options_.stop_requested()) {
        return Status(ErrorKind::kCancelled,
                      "compaction stopped before rewriting " + task->data.file.file_path);
      }
      FLOE_ASSIGN_OR_RETURN(auto reader, scan_.Open(*task));
      while (true) {
        auto batch = reader->Next();
        if (!batch.ok()) return batch.status().WithContext(task->data.file.file_path);
        if (!batch->has_value()) break;
        *rows_written += (*batch)->num_rows;
        if (options_.sort_columns.empty()) {
          FLOE_RETURN_IF_ERROR(writer.Write(**batch));
        } else {
          pending.push_back(std::move(**batch));
        }
      }
      pending_bytes += task->data.file.file_size_in_bytes;
      if (pending_bytes >= target_size_) FLOE_RETURN_IF_ERROR(flush());
    }
    return flush();
  }

  iceberg::TableScan& scan_;
  const TableMetadata& metadata_;
  const CompactionOptions& options_;
  int64_t target_size_;
  FileIO& io_;
};

// One position delete file holding the positions `inputs` (position delete
// files of one partition group) delete in the data files of `kept` (live and
// not rewritten), in that group's partition; nullopt when none is left (every
// input only deleted rows of files that go). The file's path is added to
// `written` before it is written, so the caller can delete it on failure.
Result<std::optional<DataFile>> MergePositionDeletes(FileIO& io, const TableMetadata& metadata,
                                                     const std::vector<DataFile>& inputs,
                                                     PositionDeleteCache& cache,
                                                     const std::set<std::string>& kept,
                                                     std::vector<std::string>& written) {
  const DataFile& first = inputs.front();
  const iceberg::PartitionSpec* spec = metadata.SpecById(first.spec_id);
  if (spec == nullptr) {
    return Status::Corruption("delete file " + first.file_path + ": partition spec " +
                              std::to_string(first.spec_id) + " is not in the table");
  }
  std::string location = metadata.location;
  while (!location.empty() && location.back() == '/') location.pop_back();
  std::string path = location + "/data/";
  if (!spec->fields.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string partition_path, spec->PartitionPath(first.partition));
    path += partition_path + "/";
  }
  path += "compact-" + iceberg::NewUuidV4() + "-deletes.parquet";
  iceberg::DataFileWriterOptions file_options;
  file_options.spec_id = first.spec_id;
  FLOE_ASSIGN_OR_RETURN(file_options.parquet.codec, ParquetCodecFromProperties(metadata));
  file_options.parquet.compression_level = IntProperty(metadata, kCompressionLevelProperty, 0);
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::PositionDeleteWriter::Open(io, path, first.partition, file_options));
  for (const DataFile& input : inputs) {
    FLOE_ASSIGN_OR_RETURN(auto positions, cache.Get(input));
    for (const auto& [data_path, rows] : *positions) {
      if (kept.count(data_path) == 0) continue;
      for (int64_t row : rows) FLOE_RETURN_IF_ERROR(writer->Delete(data_path, row));
    }
  }
  if (writer->buffered_deletes() == 0) return std::optional<DataFile>();
  written.push_back(path);
  FLOE_ASSIGN_OR_RETURN(DataFile merged, writer->Close());
  return std::optional<DataFile>(std::move(merged));
}

Status ValidateOptions(const CompactionOptions& options) {
  if (options.target_file_size && *options.target_file_size <= 0) {
    return Status::InvalidArgument("compaction: target file size must be positive");
  }
  if (!(options.small_file_ratio > 0 && options.small_file_ratio <= 1)) {
    return Status::InvalidArgument("compaction: small file ratio must be in (0, 1]");
  }
  if (options.min_input_files < 1) return Status::InvalidArgument("compaction: min input files must be >= 1");
  if (!(options.delete_ratio_threshold > 0 && options.delete_ratio_threshold <= 1)) {
    return Status::InvalidArgument("compaction: delete ratio threshold must be in (0, 1]");
  }
  if (options.max_delete_files < 1)
    return Status::InvalidArgument("compaction: max delete files must be >= 1");
  return Status::OK();
}

}  // namespace

Result<CompactionReport> CompactTable(iceberg::Table& table, const CompactionOptions& options) {
  FLOE_RETURN_IF_ERROR(ValidateOptions(options));
  CompactionReport report;
  const TableMetadata metadata = table.metadata();
  const iceberg::Snapshot* current = metadata.CurrentSnapshot();
  if (current == nullptr) return report;
  const int64_t planned_snapshot = current->snapshot_id;
  const int64_t target_size = options.target_file_size.value_or(
      LongProperty(metadata, kTargetFileSizeProperty, kDefaultTargetFileSize));
  if (target_size <= 0)
    return Status::InvalidArgument(std::string(kTargetFileSizeProperty) + " must be positive");
  const auto small_limit = static_cast<int64_t>(options.small_file_ratio * static_cast<double>(target_size));

  // The scan borrows the table's FileIO, which outlives this call.
  std::shared_ptr<FileIO> io(std::shared_ptr<FileIO>(), &table.io());
  // v3: every rewritten row keeps its _row_id and _last_updated_sequence_number (spec "Row Lineage"):
  // the scan fills in what rows inherit, and the new files carry the values.
  iceberg::ScanOptions scan_options;
  scan_options.row_lineage = metadata.format_version >= 3;
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  FLOE_ASSIGN_OR_RETURN(std::vector<FileScanTask> tasks, scan->PlanFiles());
  for (const std::string& column : options.sort_columns) {
    FLOE_RETURN_IF_ERROR(CheckSortColumn(scan->output_schema(), column));
  }

  PositionDeleteCache cache(table.io());
  std::map<std::string, Group> groups;
  for (const FileScanTask& task : tasks) {
    FilePlan plan;
    plan.task = &task;
    FLOE_ASSIGN_OR_RETURN(plan.deleted_rows, DeletedRowCount(cache, task));
    const DataFile& f = task.data.file;
    plan.small = f.file_size_in_bytes < small_limit;
    const bool past_ratio = f.record_count > 0 && plan.deleted_rows > 0 &&
                            static_cast<double>(plan.deleted_rows) >=
                                options.delete_ratio_threshold * static_cast<double>(f.record_count);
    const bool many = static_cast<int64_t>(task.deletes.size()) >= options.max_delete_files;
    // Only v2 position delete files merge; equality deletes (another
    // writer's) or v3 files with several delete files apply by rewriting.
    const bool mergeable =
        metadata.format_version == 2 &&
        std::all_of(task.deletes.begin(), task.deletes.end(), [](const ScanFile& d) {
          return d.file.content == DataFileContent::kPositionDeletes && !iceberg::IsDeletionVector(d.file);
        });
    plan.many_delete_files = many && !past_ratio && mergeable;
    plan.delete_heavy = past_ratio || (many && !mergeable);
    groups[GroupKey(f)].files.push_back(plan);
  }

  std::vector<ScanFile> rewritten;
  std::set<std::string> rewritten_paths;
  for (auto& [key, group] : groups) {
    // Size tiers among the small files: smallest first, a file joins while
    // it is at most twice the files taken before it. A file that grew from
    // earlier packing (tens of MB, short of the target) waits until that
    // much new data has come, instead of being rewritten with every few
    // small files: each row is rewritten a few times, not once per run.
    std::vector<FilePlan*> small;
    for (FilePlan& plan : group.files) {
      if (plan.small) small.push_back(&plan);
    }
    std::stable_sort(small.begin(), small.end(), [](const FilePlan* a, const FilePlan* b) {
      return a->task->data.file.file_size_in_bytes < b->task->data.file.file_size_in_bytes;
    });
    std::set<const FilePlan*> packable;
    int64_t packable_bytes = 0;
    for (const FilePlan* plan : small) {
      const int64_t size = plan->task->data.file.file_size_in_bytes;
      if (!packable.empty() && size > 2 * packable_bytes) break;
      packable.insert(plan);
      packable_bytes += size;
    }
    bool any_heavy = false;
    for (const FilePlan& plan : group.files) any_heavy = any_heavy || plan.delete_heavy;
    const bool pack_small = static_cast<int64_t>(packable.size()) >= options.min_input_files || any_heavy;
    for (const FilePlan& plan : group.files) {
      if (plan.delete_heavy || (pack_small && packable.count(&plan) > 0)) group.selected.push_back(plan.task);
    }
    // One small file without deletes would be rewritten into itself every round.
    if (group.selected.size() == 1 && group.selected.front()->deletes.empty()) group.selected.clear();
    if (group.selected.empty()) continue;
    CompactionGroup summary;
    summary.spec_id = group.selected.front()->data.file.spec_id;
    summary.partition = PartitionText(metadata, group.selected.front()->data.file);
    std::set<std::string> group_deletes;
    for (const FileScanTask* task : group.selected) {
      ++summary.input_files;
      summary.input_bytes += task->data.file.file_size_in_bytes;
      rewritten.push_back(task->data);
      rewritten_paths.insert(task->data.file.file_path);
      for (const ScanFile& d : task->deletes) {
        group_deletes.insert(d.file.file_path);
      }
    }
    summary.input_delete_files = static_cast<int64_t>(group_deletes.size());
    report.groups.push_back(summary);
  }
  report.data_files_rewritten = static_cast<int64_t>(rewritten.size());

  // Position delete files to merge, per group: those applying to the group's
  // data files that stay, when one of these has max_delete_files or more.
  // A group is left alone when an input deletes rows of a data file of
  // another partition (a position delete applies only within its partition,
  // so the merged file could not carry them) or was taken by another group.
  std::map<std::string, const std::string*> group_of_live;  // live data path -> its group key
  std::set<std::string> kept_live;                          // live data files not rewritten
  for (const auto& [key, group] : groups) {
    for (const FilePlan& plan : group.files) {
      const std::string& path = plan.task->data.file.file_path;
      group_of_live[path] = &key;
      if (rewritten_paths.count(path) == 0) kept_live.insert(path);
    }
  }
  std::set<std::string> merged_paths;
  for (auto& [key, group] : groups) {
    const bool wanted = std::any_of(group.files.begin(), group.files.end(), [&](const FilePlan& plan) {
      return plan.many_delete_files && kept_live.count(plan.task->data.file.file_path) > 0;
    });
    if (!wanted) continue;
    std::map<std::string, const DataFile*> inputs;
    for (const FilePlan& plan : group.files) {
      if (kept_live.count(plan.task->data.file.file_path) == 0) continue;
      for (const ScanFile& d : plan.task->deletes) {
        if (d.file.content == DataFileContent::kPositionDeletes && !iceberg::IsDeletionVector(d.file))
          inputs.emplace(d.file.file_path, &d.file);
      }
    }
    if (inputs.size() < 2) continue;
    bool mergeable = true;
    for (const auto& [path, file] : inputs) {
      if (merged_paths.count(path) > 0) mergeable = false;
      FLOE_ASSIGN_OR_RETURN(auto positions, cache.Get(*file));
      for (const auto& [data_path, rows] : *positions) {
        auto live = group_of_live.find(data_path);
        if (live != group_of_live.end() && *live->second != key && kept_live.count(data_path) > 0)
          mergeable = false;
      }
    }
    if (!mergeable) continue;
    for (const auto& [path, file] : inputs) {
      group.merged_deletes.push_back(*file);
      merged_paths.insert(path);
    }
    report.delete_files_merged += static_cast<int64_t>(inputs.size());
  }

  // Delete files that delete rows of no data file left live after the rewrite, including ones
  // already dangling before it (their data file was removed earlier). Deletion vectors are left
  // to RewriteFiles' dangling rule: removing a Puffin file by path could drop vectors of other
  // data files.
  FLOE_ASSIGN_OR_RETURN(auto live_entries, iceberg::LiveEntries(table.io(), metadata, *current));
  std::set<std::string> live_data_paths;
  for (const FileScanTask& task : tasks) live_data_paths.insert(task.data.file.file_path);
  std::vector<DataFile> removable_deletes;
  std::set<std::string> seen_deletes;
  for (const auto& entry : live_entries) {
    const DataFile& d = entry.data_file;
    if (d.content == DataFileContent::kData || !seen_deletes.insert(d.file_path).second) continue;
    if (merged_paths.count(d.file_path) > 0) continue;  // replaced by its merged file
    if (d.referenced_data_file) {
      const bool target_goes = rewritten_paths.count(*d.referenced_data_file) > 0;
      const bool target_gone = live_data_paths.count(*d.referenced_data_file) == 0;
      if (target_goes) {
        ++report.delete_files_removed;  // leaves with its data file
      } else if (target_gone && !iceberg::IsDeletionVector(d)) {
        removable_deletes.push_back(d);
      }
      continue;
    }
    if (iceberg::IsDeletionVector(d)) continue;
    const ScanFile deletes{d, entry.sequence_number.value_or(current->sequence_number)};
    bool still_needed = false;
    for (const FileScanTask& task : tasks) {
      if (rewritten_paths.count(task.data.file.file_path)) continue;
      FLOE_ASSIGN_OR_RETURN(bool applies, DeletesRowsOf(cache, deletes, task.data));
      if (applies) {
        still_needed = true;
        break;
      }
    }
    if (!still_needed) removable_deletes.push_back(d);
  }
  report.delete_files_removed += static_cast<int64_t>(removable_deletes.size());
  if (options.dry_run || (rewritten.empty() && removable_deletes.empty() && merged_paths.empty()))
    return report;

  GroupRewriter rewriter(*scan, metadata, options, target_size, table.io());
  std::vector<DataFile> added;
  std::vector<std::string> written_deletes;  // merged delete files, written or being written
  auto delete_added = [&]() {
    for (const DataFile& f : added) {
      if (f.content == DataFileContent::kData) (void)table.io().Delete(f.file_path);
    }
    for (const std::string& path : written_deletes) (void)table.io().Delete(path);
  };
  for (const auto& [key, group] : groups) {
    if (group.selected.empty()) continue;
    auto files = rewriter.Rewrite(group.selected, &report.rows_written);
    if (!files.ok()) {
      delete_added();
      return files.status();
    }
    added.insert(added.end(), files->begin(), files->end());
  }
  report.data_files_added = static_cast<int64_t>(added.size());
  std::vector<DataFile> merged_deletes;
  for (const auto& [key, group] : groups) {
    if (group.merged_deletes.empty()) continue;
    auto merged =
        MergePositionDeletes(table.io(), metadata, group.merged_deletes, cache, kept_live, written_deletes);
    if (!merged.ok()) {
      delete_added();
      return merged.status().WithContext("merging the position delete files of partition '" +
                                         PartitionText(metadata, group.merged_deletes.front()) + "'");
    }
    if (*merged) {
      added.push_back(**merged);
      ++report.delete_files_written;
    }
    merged_deletes.insert(merged_deletes.end(), group.merged_deletes.begin(), group.merged_deletes.end());
  }

  // Refresh, conflict check and commit run as one gated phase: no commit of
  // the gate's owner (an ingest batch) can land between the check and ours.
  std::optional<int64_t> committed_snapshot;
  Status phase = RunCommitPhase(options.commit_gate, [&]() -> Status {
    FLOE_RETURN_IF_ERROR(table.Refresh());
    FLOE_RETURN_IF_ERROR(CheckNoNewDeletes(table.io(), table.metadata(), planned_snapshot, rewritten));
    iceberg::RewriteFiles rewrite = table.NewRewriteFiles();
    for (const ScanFile& f : rewritten) rewrite.DeleteFile(f.file);
    for (const DataFile& f : removable_deletes) rewrite.DeleteFile(f);
    for (const DataFile& f : merged_deletes) rewrite.DeleteFile(f);
    for (const DataFile& f : added) rewrite.AddFile(f);
    rewrite.Set(kMaintenanceSummaryKey, "compaction")
        .CarryFromParent(kCarriedSummaryPrefix)
        .CarryFromParent(kCarriedSourceSummaryPrefix)
        .CarryFromParent(kCarriedAggregateSummaryPrefix);
    if (options.commit_summary) {
      for (const auto& [key, value] : options.commit_summary()) rewrite.Set(key, value);
    }
    FLOE_ASSIGN_OR_RETURN(auto committed, rewrite.Commit());
    committed_snapshot = committed.snapshot_id;
    return Status::OK();
  });
  if (!phase.ok()) {
    if (phase.kind() == ErrorKind::kCommitStateUnknown) return phase;  // the files may be referenced now
    delete_added();
    if (phase.kind() != ErrorKind::kCommitFailed) return phase;
    report.conflict = phase.message();
    report.data_files_added = 0;
    report.delete_files_written = 0;
    return report;
  }
  report.snapshot_id = committed_snapshot;
  return report;
}

}  // namespace floe::maintenance
