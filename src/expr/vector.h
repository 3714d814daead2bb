// The evaluator's working values: vectors over the rows of a frame.
//
// Contract: a Vector is a Column of the frame's row count, or a constant (a
// Column of one row standing for every row). It may alias a batch column
// (no copy) through a non-owning shared_ptr, so a Vector must not outlive
// the batch it was computed from. Null slots of fixed-width Vectors may hold
// any bytes; only validity says what is null (Finalize zeroes them for
// output). A Frame is a set of batch rows: all of them, or the ascending
// indexes in `sel` (used to evaluate CASE branches and the right side of
// AND/OR only where they decide). Not thread-safe; one evaluation per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "expr/eval_context.h"

namespace floe::expr {

struct Vector {
  std::shared_ptr<const Column> column;
  bool constant = false;

  const Column& col() const { return *column; }
  int64_t Index(int64_t i) const { return constant ? 0 : i; }
  bool IsNull(int64_t i) const { return column->IsNull(Index(i)); }
  bool IsValid(int64_t i) const { return column->IsValid(Index(i)); }
  // A constant vector whose one value is null.
  bool IsConstantNull() const { return constant && column->IsNull(0); }
};

Vector OwnedVector(Column column, bool constant = false);
// Aliases `column` without copying or owning it.
Vector BorrowedVector(const Column& column);

struct Frame {
  const RecordBatch* batch = nullptr;
  const std::vector<int32_t>* sel = nullptr;  // nullptr: every batch row
  int64_t rows = 0;

  int64_t BatchRow(int64_t i) const { return sel ? (*sel)[static_cast<size_t>(i)] : i; }
};

// Where an evaluation is: for error messages naming the row and file.
struct EvalScope {
  const Frame* frame = nullptr;
  const EvalContext* context = nullptr;

  // "<what> at row N of the batch (source file F, row R)"; kind OutOfRange
  // for overflow, InvalidArgument for bad values.
  Status RowError(ErrorKind kind, int64_t frame_row, const std::string& what) const;
};

// Validity of the result of a function that is null when any input is:
// writes out->validity / null_count for `rows` rows from the inputs'.
void CombineValidity(const std::vector<const Vector*>& inputs, int64_t rows, Column* out);

// Sets row i null in `out` (materialising validity as all-valid first).
void SetNull(Column* out, int64_t i);
// Recounts null_count from validity; drops an all-valid bitmap.
void RecountNulls(Column* out);
// Zeroes the value bytes of null slots (the Column contract) and, for
// strings/binary, leaves offsets as they are.
void ZeroNullSlots(Column* out);

// A full column of `rows` copies of a constant's value, or the vector itself.
Column Materialize(const Vector& v, int64_t rows);

// Rows `positions` (frame rows, ascending) of vector `v` as a dense column.
Column Gather(const Vector& v, const std::vector<int32_t>& positions);

// The bit of a bitmap (LSB first).
inline bool BitAt(const std::vector<uint8_t>& bits, int64_t i) {
  return (bits[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1;
}

}  // namespace floe::expr
