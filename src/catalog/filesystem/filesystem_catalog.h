// The filesystem ("Hadoop") catalog: the directory tree is the catalog.
//
// Layout: <warehouse>/<ns level>/.../<table>/metadata/v<N>.metadata.json and
// version-hint.text holding N (replaced via temp file + rename). A table is a
// directory with a metadata/ subdirectory; other directories are namespaces.
//
// Contract: a commit creates v<N+1>.metadata.json with if-not-exists — losing
// that race is CommitFailed — then updates the hint; readers trust the hint
// but probe for newer versions, so a crash between the two steps loses
// nothing. Only safe on filesystems with atomic exclusive create (local
// disks), never on object stores, so this catalog only accepts local paths.
#pragma once

#include <memory>
#include <string>

#include "catalog/table/catalog.h"

namespace floe::catalog {

// `warehouse` is a local directory (plain path or file:// URI), created when
// missing. `io` reaches it (empty: the local FileIO; tests pass a wrapper).
Result<std::unique_ptr<Catalog>> OpenFilesystemCatalog(const std::string& warehouse,
                                                       std::shared_ptr<FileIO> io = nullptr);

}  // namespace floe::catalog
