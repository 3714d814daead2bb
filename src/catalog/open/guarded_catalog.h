// GuardCatalog: a catalog whose every commit first passes a CommitGuard's
// BeforeCommit (commit_guard.h) — for the catalogs that cannot check a
// condition inside their own commit (REST, Glue, filesystem, and SQL on
// another database than the guard's). Everything else passes through.
// Thread-safety: as the wrapped catalog's.
#pragma once

#include <memory>

#include "catalog/commit_guard.h"
#include "catalog/table/catalog.h"

namespace floe::catalog {

std::unique_ptr<Catalog> GuardCatalog(std::unique_ptr<Catalog> inner, std::shared_ptr<CommitGuard> guard);

}  // namespace floe::catalog
