// Text tables for terminals: rows of cells as columns aligned on their
// widest cell (`floe run`'s summary, `floe files` and its --lag view).
//
// Contract: cells are separated by two spaces; a column is padded on the
// left where `right_aligned(column)` (numbers), else on the right; each line
// ends with "\n" and no trailing space. Widths count bytes (cells are ASCII
// or accepted as slightly off for UTF-8 names). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace floe {

std::string FormatTextTable(const std::vector<std::vector<std::string>>& rows,
                            const std::function<bool(size_t column)>& right_aligned = {});

}  // namespace floe
