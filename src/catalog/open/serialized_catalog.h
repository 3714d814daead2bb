// SerializeCatalog: a catalog that several threads may share — each call on
// it runs alone (one mutex). For the pipeline, which applies the tables of a
// poll in parallel, one thread per table.
//
// Contract: the TableOperations it returns are the wrapped catalog's, used
// by one thread at a time each (iceberg/transaction/table_operations.h).
// Table operations of different tables may run on different threads at once:
// what every catalog's table operations share with their catalog is
// thread-safe (the SQL metastore runs one statement or transaction at a time
// on its connection, the HTTP transport's handle pool and the AWS client
// lock, FileIO is thread-safe), and a commit guard (commit_guard.h) is
// called from the maintenance worker's thread beside the pipeline's already.
#pragma once

#include <memory>

#include "catalog/table/catalog.h"

namespace floe::catalog {

std::unique_ptr<Catalog> SerializeCatalog(std::unique_ptr<Catalog> inner);

}  // namespace floe::catalog
