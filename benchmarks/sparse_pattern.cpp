#include "benchmarks/sparse_pattern.hpp"

#include <cholmod.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace {

// CHOLMOD's workspace for one read; finished however the read ends.
class Cholmod {
 public:
  Cholmod() { cholmod_start(&common_); common_.print = 0; }
  ~Cholmod() { cholmod_finish(&common_); }
  Cholmod(const Cholmod&) = delete;
  Cholmod& operator=(const Cholmod&) = delete;
  cholmod_common* get() { return &common_; }

 private:
  cholmod_common common_{};
};

struct SparseDeleter {
  cholmod_common* common;
  void operator()(cholmod_sparse* a) const { cholmod_free_sparse(&a, common); }
};
using SparseMatrix = std::unique_ptr<cholmod_sparse, SparseDeleter>;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

SparsePattern SparsePattern::read(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "r"));
  if (!file) throw std::runtime_error(path + ": cannot be opened");
  Cholmod cholmod;
  SparseMatrix a(cholmod_read_sparse(file.get(), cholmod.get()), SparseDeleter{cholmod.get()});
  if (!a) throw std::runtime_error(path + ": CHOLMOD cannot read it as a sparse Matrix Market matrix (status " +
                                   std::to_string(cholmod.get()->status) + ")");
  if (a->stype != 0) {
    // Only one triangle is stored: the pattern of both (mode 0: pattern).
    a.reset(cholmod_copy(a.get(), 0, 0, cholmod.get()));
    if (!a) throw std::runtime_error(path + ": CHOLMOD cannot expand the symmetric matrix");
  }
  if (a->itype != CHOLMOD_INT) throw std::runtime_error(path + ": unexpected CHOLMOD index type");
  const int* start = static_cast<const int*>(a->p);
  const int* index = static_cast<const int*>(a->i);
  const int* count = a->packed ? nullptr : static_cast<const int*>(a->nz);
  SparsePattern p;
  p.rows = static_cast<long>(a->nrow);
  p.cols = static_cast<long>(a->ncol);
  p.col_start.push_back(0);
  for (long j = 0; j < p.cols; ++j) {
    const int end = count ? start[j] + count[j] : start[j + 1];
    for (int k = start[j]; k < end; ++k) p.row_index.push_back(index[k]);
    p.col_start.push_back(static_cast<long>(p.row_index.size()));
  }
  return p;
}
