// The nonzero pattern of a Matrix Market file, read through SuiteSparse
// (CHOLMOD's reader: real, integer, pattern; general and symmetric, the
// latter expanded to both triangles, as a row-partitioned SpMV sees it).
#pragma once

#include <string>
#include <vector>

struct SparsePattern {
  long rows = 0, cols = 0;
  std::vector<long> col_start;  // cols + 1 entries (compressed columns)
  std::vector<long> row_index;  // row of each nonzero, column by column

  long nonzeros() const { return static_cast<long>(row_index.size()); }
  // Throws std::runtime_error naming the file and what CHOLMOD reported.
  static SparsePattern read(const std::string& path);
};
