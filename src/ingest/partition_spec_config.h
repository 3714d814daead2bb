// The [target] partition_by setting turned into an Iceberg partition spec.
//
// Contract: each entry is "column" or "identity(column)", "year(column)",
// "month(column)", "day(column)", "hour(column)", "bucket(N, column)" or
// "truncate(W, column)" (transform names case-insensitive, N and W positive
// integers, column a dotted name of `schema`). Partition fields get ids from
// 1000 in entry order and Java's names: the column for identity, else
// <column>_bucket, _trunc, _year, _month, _day, _hour. A malformed entry, an
// unknown column or a transform the column's type does not take is
// InvalidArgument naming the entry.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/partition_spec.h"
#include "iceberg/spec/schema.h"

namespace floe::ingest {

Result<iceberg::PartitionSpec> ParsePartitionSpec(const std::vector<std::string>& entries,
                                                  const iceberg::Schema& schema);

}  // namespace floe::ingest
