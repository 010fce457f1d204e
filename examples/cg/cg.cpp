// Conjugate gradient (Jacobi-preconditioned) on a symmetric positive
// definite sparse matrix, rows split over the ranks in contiguous blocks, the
// SpMV's halo exchange through mpix-rma's C API (<mpix/mpix.h>).
//
//   mpiexec -n 2 cg --matrix bcsstk13.mtx --exchange mpi,auto
//   mpiexec -n 2 cg --laplace3d 40 --exchange mpi_neighbor,neighbor:auto
//   mpiexec -n 2 cg --laplace3d 40
//
// Matrices: a Matrix Market file read with CHOLMOD. A real symmetric matrix
// is used as it is (bcsstk13, msc01050: SPD); a pattern-only one (bcsstk33,
// crack) becomes its graph Laplacian plus the identity, which is SPD.
// --laplace3d m generates the 7-point Laplacian of an m x m x m grid.
//
// --exchange lists the variants, solved in interleaved rounds: "mpi" calls
// MPI_Alltoallv every iteration; "mpi_neighbor" calls MPI_Neighbor_alltoallv
// on the halo's distributed graph (an edge per peer that exchanges
// entries); "neighbor:NAME" is an mpix-rma persistent neighbourhood request
// on that graph ("neighbor:auto", or a registered neighbourhood algorithm);
// any other name is an mpix-rma persistent Alltoallv request, "auto" or a
// registered algorithm. Every variant must reach the relative residual in
// the same iterations with the same residual history.
#include <cholmod.h>
#include <mpi.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "example_util.hpp"

namespace {

// This rank's rows of the matrix, with global column indices.
struct LocalRows {
  long n_global = 0;
  long first_row = 0;
  std::vector<long> row_start{0};
  std::vector<long> column;
  std::vector<double> value;
  long rows() const { return static_cast<long>(row_start.size()) - 1; }
};

struct CholmodFinish {
  void operator()(cholmod_common* c) const {
    cholmod_finish(c);
    delete c;
  }
};
struct SparseFree {
  cholmod_common* c;
  void operator()(cholmod_sparse* a) const { cholmod_free_sparse(&a, c); }
};

// Rows [first, first + count) of the matrix in path. CHOLMOD stores columns;
// the matrix is symmetric, so column j holds row j.
// pattern: the file has no values (CHOLMOD invents some: -1 off the
// diagonal, and no diagonal where the file has none), so the matrix is made
// here, from the pattern alone.
LocalRows read_rows(const std::string& path, bool pattern, const example::BlockDistribution& rows, int rank) {
  std::unique_ptr<cholmod_common, CholmodFinish> c(new cholmod_common);
  cholmod_start(c.get());
  c->print = 0;
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (!file) throw std::runtime_error(path + ": cannot be opened");
  std::unique_ptr<cholmod_sparse, SparseFree> a(cholmod_read_sparse(file, c.get()), SparseFree{c.get()});
  std::fclose(file);
  if (!a) throw std::runtime_error(path + ": CHOLMOD cannot read it");
  if (a->nrow != a->ncol || a->stype == 0) throw std::runtime_error(path + ": not a symmetric matrix");
  a.reset(cholmod_copy(a.get(), 0, pattern ? 0 : 1, c.get()));  // both triangles, values kept
  if (!a || a->itype != CHOLMOD_INT) throw std::runtime_error(path + ": CHOLMOD cannot expand it");
  const int* start = static_cast<const int*>(a->p);
  const int* index = static_cast<const int*>(a->i);
  const double* values = static_cast<const double*>(a->x);
  if (!pattern && !values) throw std::runtime_error(path + ": no values");

  LocalRows local;
  local.n_global = static_cast<long>(a->nrow);
  if (rows.n != local.n_global) throw std::logic_error("distribution of the wrong size");
  local.first_row = rows.first(rank);
  for (long i = local.first_row; i < local.first_row + rows.count(rank); ++i) {
    long degree = 0;
    const std::size_t diagonal = local.column.size();
    if (pattern) {  // graph Laplacian + I: -1 per neighbour, degree + 1 on the diagonal
      local.column.push_back(i);
      local.value.push_back(0.0);
    }
    for (int k = start[i]; k < start[i + 1]; ++k) {
      if (pattern && index[k] == i) continue;
      local.column.push_back(index[k]);
      local.value.push_back(pattern ? -1.0 : values[k]);
      ++degree;
    }
    if (pattern) local.value[diagonal] = static_cast<double>(degree) + 1.0;
    local.row_start.push_back(static_cast<long>(local.column.size()));
  }
  return local;
}

// The 7-point Laplacian of an m^3 grid (SPD: Dirichlet boundary).
LocalRows laplace3d_rows(long m, const example::BlockDistribution& rows, int rank) {
  LocalRows local;
  local.n_global = m * m * m;
  local.first_row = rows.first(rank);
  for (long i = local.first_row; i < local.first_row + rows.count(rank); ++i) {
    const long x = i / (m * m), y = (i / m) % m, z = i % m;
    const long neighbours[6][2] = {{x > 0, i - m * m}, {x < m - 1, i + m * m}, {y > 0, i - m},
                                   {y < m - 1, i + m},  {z > 0, i - 1},         {z < m - 1, i + 1}};
    local.column.push_back(i);
    local.value.push_back(6.0);
    for (const auto& nb : neighbours)
      if (nb[0]) {
        local.column.push_back(nb[1]);
        local.value.push_back(-1.0);
      }
    local.row_start.push_back(static_cast<long>(local.column.size()));
  }
  return local;
}

// The halo exchange of y = A x: x_ext holds this rank's entries of x, then
// the halo (the entries of other ranks that its rows use), peer after peer.
// The persistent request receives straight into x_ext's halo part.
class HaloSpmv {
 public:
  HaloSpmv(const LocalRows& a, const example::BlockDistribution& rows, MPI_Comm comm, MPIX_Comm* xcomm,
           const std::string& variant)
      : a_(a), comm_(comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    const long n = a.rows();
    // The halo: the columns each owner must send me, sorted, once each.
    std::vector<std::vector<long>> wanted(size);
    std::unordered_map<long, long> local_index;
    for (long k = 0; k < static_cast<long>(a.column.size()); ++k) {
      const long j = a.column[k];
      if (j >= a.first_row && j < a.first_row + n) continue;
      if (local_index.emplace(j, -1).second) wanted[rows.owner(j)].push_back(j);
    }
    recvcounts_.assign(size, 0);
    rdispls_.assign(size, 0);
    long halo = 0;
    for (int s = 0; s < size; ++s) {
      std::sort(wanted[s].begin(), wanted[s].end());
      rdispls_[s] = static_cast<int>(halo);
      recvcounts_[s] = static_cast<int>(wanted[s].size());
      for (long j : wanted[s]) local_index[j] = n + halo++;
    }
    // Columns in local numbering: mine first, then the halo.
    local_column_.resize(a.column.size());
    for (std::size_t k = 0; k < a.column.size(); ++k) {
      const long j = a.column[k];
      local_column_[k] = (j >= a.first_row && j < a.first_row + n) ? j - a.first_row : local_index[j];
    }
    // Who wants which of my entries: told once, at set-up.
    sendcounts_.assign(size, 0);
    MPI_Alltoall(recvcounts_.data(), 1, MPI_INT, sendcounts_.data(), 1, MPI_INT, comm);
    sdispls_.assign(size, 0);
    for (int s = 1; s < size; ++s) sdispls_[s] = sdispls_[s - 1] + sendcounts_[s - 1];
    std::vector<long> flat_wanted;
    for (const auto& w : wanted) flat_wanted.insert(flat_wanted.end(), w.begin(), w.end());
    send_index_.resize(sdispls_[size - 1] + sendcounts_[size - 1]);
    MPI_Alltoallv(flat_wanted.data(), recvcounts_.data(), rdispls_.data(), MPI_LONG, send_index_.data(),
                  sendcounts_.data(), sdispls_.data(), MPI_LONG, comm);
    for (long& j : send_index_) j -= a.first_row;

    x_ext_.assign(n + halo, 0.0);
    send_values_.assign(send_index_.size(), 0.0);
    const std::string neighbor_prefix = "neighbor:";
    if (variant == "mpi_neighbor" || variant.rfind(neighbor_prefix, 0) == 0) {
      make_graph(comm, size);
      if (variant != "mpi_neighbor") {
        // mpix-rma for a sparse code: an MPIX_Comm of the graph, and one
        // persistent neighbourhood request with per-edge counts.
        MPIX_Comm_init(&graph_xcomm_, graph_);
        MPIX_Info* info = nullptr;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "mpix_neighbor_alltoallv_algorithm", variant.substr(neighbor_prefix.size()).c_str());
        MPIX_Neighbor_alltoallv_init(send_values_.data(), edge_sendcounts_.data(), edge_sdispls_.data(), MPI_DOUBLE,
                                     x_ext_.data() + n, edge_recvcounts_.data(), edge_rdispls_.data(), MPI_DOUBLE,
                                     graph_xcomm_, info, &request_);
        MPIX_Info_free(&info);
      }
    } else if (variant != "mpi") {
      // mpix-rma, step 2: one persistent request for the halo exchange, over
      // buffers that stay put: the packed values, and x_ext's halo part.
      MPIX_Info* info = nullptr;
      MPIX_Info_init(&info);
      if (variant != "auto") MPIX_Info_set(info, "mpix_alltoallv_algorithm", variant.c_str());
      MPIX_Alltoallv_init(send_values_.data(), sendcounts_.data(), sdispls_.data(), MPI_DOUBLE, x_ext_.data() + n,
                          recvcounts_.data(), rdispls_.data(), MPI_DOUBLE, xcomm, info, &request_);
      MPIX_Info_free(&info);
    }
  }
  ~HaloSpmv() {
    // mpix-rma, step 4: free the request (collective: every rank, same order).
    if (request_) MPIX_Request_free(&request_);
    if (graph_xcomm_) MPIX_Comm_free(&graph_xcomm_);
    if (graph_ != MPI_COMM_NULL) MPI_Comm_free(&graph_);
  }
  HaloSpmv(const HaloSpmv&) = delete;
  HaloSpmv& operator=(const HaloSpmv&) = delete;

  // This rank's part of the vector the next multiply reads.
  double* x() { return x_ext_.data(); }

  // y = A x: the halo exchange, then the local rows.
  void multiply(std::vector<double>& y) {
    for (std::size_t k = 0; k < send_index_.size(); ++k) send_values_[k] = x_ext_[send_index_[k]];
    const double begin = MPI_Wtime();
    if (request_) {
      // mpix-rma, step 3: start and wait the same request every iteration.
      MPIX_Start(request_);
      MPIX_Wait(request_, MPI_STATUS_IGNORE);
    } else if (graph_ != MPI_COMM_NULL) {
      MPI_Neighbor_alltoallv(send_values_.data(), edge_sendcounts_.data(), edge_sdispls_.data(), MPI_DOUBLE,
                             x_ext_.data() + a_.rows(), edge_recvcounts_.data(), edge_rdispls_.data(), MPI_DOUBLE,
                             graph_);
    } else {
      MPI_Alltoallv(send_values_.data(), sendcounts_.data(), sdispls_.data(), MPI_DOUBLE, x_ext_.data() + a_.rows(),
                    recvcounts_.data(), rdispls_.data(), MPI_DOUBLE, comm_);
    }
    exchange_seconds_ += MPI_Wtime() - begin;
    for (long i = 0; i < a_.rows(); ++i) {
      double sum = 0.0;
      for (long k = a_.row_start[i]; k < a_.row_start[i + 1]; ++k) sum += a_.value[k] * x_ext_[local_column_[k]];
      y[i] = sum;
    }
  }

  std::string algorithm() const {
    if (!request_) return graph_ != MPI_COMM_NULL ? "MPI_Neighbor_alltoallv" : "MPI_Alltoallv";
    char name[MPIX_MAX_OBJECT_NAME];
    int length = 0;
    MPIX_Request_get_algorithm(request_, name, &length);
    return std::string(name, length);
  }
  double take_exchange_seconds() { return std::exchange(exchange_seconds_, 0.0); }

 private:
  // The halo as a distributed graph: an edge from every rank that sends me
  // entries, and to every rank I send entries, in rank order (the order of
  // the blocks in the buffers), with the Alltoallv's counts per edge.
  void make_graph(MPI_Comm comm, int size) {
    std::vector<int> sources, destinations;
    for (int r = 0; r < size; ++r) {
      if (recvcounts_[r] > 0) {
        sources.push_back(r);
        edge_recvcounts_.push_back(recvcounts_[r]);
        edge_rdispls_.push_back(rdispls_[r]);
      }
      if (sendcounts_[r] > 0) {
        destinations.push_back(r);
        edge_sendcounts_.push_back(sendcounts_[r]);
        edge_sdispls_.push_back(sdispls_[r]);
      }
    }
    MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
                                   static_cast<int>(destinations.size()), destinations.data(), MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph_);
  }

  const LocalRows& a_;
  MPI_Comm comm_;
  std::vector<long> local_column_, send_index_;
  std::vector<int> sendcounts_, sdispls_, recvcounts_, rdispls_;
  std::vector<double> x_ext_, send_values_;
  std::vector<int> edge_sendcounts_, edge_sdispls_, edge_recvcounts_, edge_rdispls_;  // per graph edge
  MPI_Comm graph_ = MPI_COMM_NULL;  // the neighbourhood variants' graph
  MPIX_Comm* graph_xcomm_ = nullptr;
  MPIX_Request* request_ = nullptr;
  double exchange_seconds_ = 0.0;
};

// The sums of the dot products over the ranks, timed: with the exchange,
// the other communication of an iteration.
struct Reductions {
  MPI_Comm comm;
  double seconds = 0.0;
  void sum(double* values, int count) {
    const double begin = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
    seconds += MPI_Wtime() - begin;
  }
  double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) d += a[i] * b[i];
    sum(&d, 1);
    return d;
  }
};

struct Solve {
  std::vector<double> residuals;  // ||r_k|| / ||b||, k = 1, 2, ...
  double true_residual = 0.0;     // ||b - A x|| / ||b|| recomputed at the end
  double seconds = 0.0, exchange_seconds = 0.0, reduction_seconds = 0.0;  // per iteration
};

// Solves A x = b (b = all ones) from x = 0 to ||r|| / ||b|| <= tolerance.
Solve conjugate_gradient(const LocalRows& a, HaloSpmv& spmv, double tolerance, long max_iterations, MPI_Comm comm) {
  const std::size_t n = static_cast<std::size_t>(a.rows());
  std::vector<double> inverse_diagonal(n, 1.0);
  for (std::size_t i = 0; i < n; ++i)
    for (long k = a.row_start[i]; k < a.row_start[i + 1]; ++k)
      if (a.column[k] == a.first_row + static_cast<long>(i)) inverse_diagonal[i] = 1.0 / a.value[k];
  std::vector<double> x(n, 0.0), r(n, 1.0), z(n), p(n), q(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = inverse_diagonal[i] * r[i];
  p = z;
  Reductions reductions{comm};
  const double b_norm = std::sqrt(reductions.dot(r, r));
  double rz = reductions.dot(r, z);
  Solve solve;
  spmv.take_exchange_seconds();
  reductions.seconds = 0.0;
  MPI_Barrier(comm);
  const double begin = MPI_Wtime();
  for (long k = 0; k < max_iterations; ++k) {
    std::copy(p.begin(), p.end(), spmv.x());
    spmv.multiply(q);
    const double alpha = rz / reductions.dot(p, q);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = inverse_diagonal[i] * r[i];
    }
    double sums[2] = {0.0, 0.0};  // r.r and r.z in one reduction
    for (std::size_t i = 0; i < n; ++i) sums[0] += r[i] * r[i], sums[1] += r[i] * z[i];
    reductions.sum(sums, 2);
    solve.residuals.push_back(std::sqrt(sums[0]) / b_norm);
    if (solve.residuals.back() <= tolerance) break;
    const double beta = sums[1] / rz;
    rz = sums[1];
    for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  const double iterations = static_cast<double>(std::max<std::size_t>(solve.residuals.size(), 1));
  solve.seconds = example::max_over_ranks((MPI_Wtime() - begin) / iterations, comm);
  solve.exchange_seconds = example::max_over_ranks(spmv.take_exchange_seconds() / iterations, comm);
  solve.reduction_seconds = example::max_over_ranks(reductions.seconds / iterations, comm);
  // After timing: the residual the iteration reports is the true one.
  std::copy(x.begin(), x.end(), spmv.x());
  spmv.multiply(q);
  for (std::size_t i = 0; i < n; ++i) q[i] = 1.0 - q[i];
  solve.true_residual = std::sqrt(reductions.dot(q, q)) / b_norm;
  return solve;
}

int run(int argc, char** argv) {
  const example::Options options(argc, argv,
                                 {{"matrix", ""},
                                  {"laplace3d", "0"},
                                  {"exchange", "mpi,auto"},
                                  {"rounds", "3"},
                                  {"tolerance-exponent", "8"},
                                  {"max-iterations", "100000"},
                                  {"csv", ""}});
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string path = options.text("matrix");
  const long m = options.number("laplace3d");
  if (path.empty() == (m <= 0)) throw std::invalid_argument("give one of --matrix FILE and --laplace3d M");
  const std::vector<std::string> variants = options.list("exchange");
  const long rounds = options.number("rounds");
  if (variants.empty() || rounds < 1) throw std::invalid_argument("need an --exchange and --rounds >= 1");
  const double tolerance = std::pow(10.0, -static_cast<double>(options.number("tolerance-exponent")));

  long n_global = m * m * m;
  bool pattern = false;
  if (!path.empty()) {  // the banner and the size (every rank reads the file)
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) throw std::runtime_error(path + ": cannot be opened");
    char line[1024];
    long rows = -1, cols = -1, entries = -1;
    if (std::fgets(line, sizeof line, f)) pattern = std::string(line).find(" pattern") != std::string::npos;
    while (std::fgets(line, sizeof line, f))
      if (line[0] != '%' && std::sscanf(line, "%ld %ld %ld", &rows, &cols, &entries) == 3) break;
    std::fclose(f);
    n_global = rows;
  }
  if (n_global < size) throw std::invalid_argument("the matrix has fewer rows than there are ranks");
  const example::BlockDistribution rows{n_global, size};
  const LocalRows a = path.empty() ? laplace3d_rows(m, rows, rank) : read_rows(path, pattern, rows, rank);

  // mpix-rma, step 1: an MPIX_Comm for the communicator, made once.
  MPIX_Comm* xcomm = nullptr;
  MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);

  std::vector<std::unique_ptr<HaloSpmv>> spmvs;
  std::vector<std::string> algorithms;
  for (const std::string& variant : variants) {
    spmvs.push_back(std::make_unique<HaloSpmv>(a, rows, MPI_COMM_WORLD, xcomm, variant));
    algorithms.push_back(spmvs.back()->algorithm());
  }
  const long max_iterations = options.number("max-iterations");
  std::vector<example::Timings> timings(variants.size());
  std::vector<std::vector<double>> reduction_seconds(variants.size());
  std::vector<Solve> first(variants.size());
  bool correct = true;
  for (long round = 0; round < rounds; ++round) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const Solve solve = conjugate_gradient(a, *spmvs[v], tolerance, max_iterations, MPI_COMM_WORLD);
      timings[v].total.push_back(solve.seconds);
      timings[v].exchange.push_back(solve.exchange_seconds);
      reduction_seconds[v].push_back(solve.reduction_seconds);
      if (round == 0) first[v] = solve;
      // The exchange moves exact copies: every variant, every round, follows
      // the first variant's residual history (to rounding) and converges.
      const Solve& reference = first[0];
      bool same = solve.residuals.size() == reference.residuals.size();
      for (std::size_t k = 0; same && k < solve.residuals.size(); ++k)
        same = std::abs(solve.residuals[k] - reference.residuals[k]) <= 1e-10 * reference.residuals[k];
      const bool converged = !solve.residuals.empty() && solve.residuals.back() <= tolerance &&
                             solve.true_residual <= 10 * tolerance;
      if (!same || !converged) {
        correct = false;
        if (rank == 0)
          std::printf("cg: %s: %s after %zu iterations (residual %.3e, true %.3e)\n", variants[v].c_str(),
                      !converged ? "did not converge" : "residual history differs from the first variant",
                      solve.residuals.size(), solve.residuals.empty() ? 0.0 : solve.residuals.back(),
                      solve.true_residual);
      }
    }
  }
  if (rank == 0) {
    const std::string name = path.empty() ? "laplace3d_" + std::to_string(m) : path.substr(path.rfind('/') + 1);
    std::printf("cg: %s, n=%ld on %d ranks, %zu iterations to %.0e (true residual %.2e), %ld rounds "
                "(medians, slowest rank)\n",
                name.c_str(), n_global, size, first[0].residuals.size(), tolerance, first[0].true_residual, rounds);
    example::report("cg", options.text("csv"), name, variants, algorithms, timings, "iteration us");
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const double total = example::median(timings[v].total), exchange = example::median(timings[v].exchange);
      const double reduce = example::median(reduction_seconds[v]);
      std::printf("cg: %s: an iteration is %.1f us exchange + %.1f us reductions + %.1f us local work\n",
                  variants[v].c_str(), exchange * 1e6, reduce * 1e6, (total - exchange - reduce) * 1e6);
    }
    std::printf("cg: %s\n", correct ? "ok" : "WRONG RESULTS");
  }
  spmvs.clear();
  MPIX_Comm_free(&xcomm);
  return correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return example::run_with_mpi(argc, argv, "cg", run); }
