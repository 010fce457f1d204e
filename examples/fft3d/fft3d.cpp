// A distributed 3D complex-to-complex FFT of an N x N x N grid over P ranks,
// slab decomposition, with mpix-rma's C++ interface (<mpix/mpix.hpp>).
//
// Forward: 2D FFTs over (y, z) of this rank's x-planes, a transpose to
// y-slabs (pack, Alltoallv, unpack), 1D FFTs along x. Backward undoes it.
// N need not be divisible by P, so blocks differ per peer: a real Alltoallv.
// Where it is, the blocks are even and the transpose is an Alltoall, as
// FFTW-MPI and most FFT libraries then call it.
//
//   mpiexec -n 2 fft3d --n 128 --exchange mpi,auto
//   mpiexec -n 2 fft3d --n 128 --exchange mpi_alltoall,alltoall:auto
//
// --exchange lists the variants, run in interleaved rounds: "mpi" calls
// MPI_Alltoallv every time, "mpi_alltoall" MPI_Alltoall (even blocks only);
// "alltoall:<name>" is an mpix-rma persistent Alltoall (mpix::Alltoall,
// even blocks only) running "auto" or a registered Alltoall algorithm; any
// other name is an mpix-rma persistent Alltoallv, "auto" or a registered
// algorithm.
// Every variant is first checked against a serial FFTW transform of the same
// grid on rank 0, and after timing for forward + backward = identity.
#include <fftw3.h>
#include <mpi.h>
#include <mpix/mpix.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "example_util.hpp"

namespace {

using Complex = std::complex<double>;

fftw_complex* as_fftw(Complex* p) { return reinterpret_cast<fftw_complex*>(p); }

struct PlanDeleter {
  void operator()(fftw_plan_s* p) const { fftw_destroy_plan(p); }
};
using Plan = std::unique_ptr<fftw_plan_s, PlanDeleter>;

// The input grid, a function of the global index, so every rank can make
// its own part and rank 0 the whole for the check.
Complex input_value(long x, long y, long z, long n) {
  const double t = static_cast<double>((x * n + y) * n + z);
  return {std::sin(0.37 * t) + 0.1 * static_cast<double>(x), std::cos(0.11 * t) - 0.05 * static_cast<double>(z)};
}

// Prefix sums: displacements of blocks laid out one after another.
std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

class SlabFft {
  using Packed = std::vector<Complex, mpix::allocator<Complex>>;

 public:
  // variant: as --exchange names it (see the top of this file).
  SlabFft(long n, MPI_Comm comm, const mpix::Comm& xcomm, const std::string& variant, unsigned fftw_flags)
      : n_(n), comm_(comm), uniform_(variant == "mpi_alltoall" || variant.rfind(alltoall_prefix, 0) == 0) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    planes_ = example::BlockDistribution{n, size_};
    nx_ = planes_.count(rank_);  // x-planes here before the transpose
    ny_ = planes_.count(rank_);  // y-planes here after it (same distribution)
    xslab_.resize(nx_ * n * n);  // [x][y][z]
    yslab_.resize(ny_ * n * n);  // [y][z][x]: x contiguous for the 1D FFTs
    // The transpose's two buffers serve both directions: forward sends from
    // packed_x and receives into packed_y, backward the other way round.
    // mpix-rma, step 2a: they come from MPIX_Alloc_mem (mpix::allocator), so
    // that a node peer can copy a large block straight out of them.
    packed_x_.resize(nx_ * n * n);
    packed_y_.resize(ny_ * n * n);

    std::vector<int> forward_send(size_), forward_recv(size_);
    for (int s = 0; s < size_; ++s) {
      forward_send[s] = static_cast<int>(nx_ * planes_.count(s) * n);  // my x-planes, its y-range
      forward_recv[s] = static_cast<int>(planes_.count(s) * ny_ * n);  // its x-planes, my y-range
    }
    forward_ = Transpose{forward_send, displacements(forward_send), forward_recv, displacements(forward_recv)};
    backward_ = Transpose{forward_recv, forward_.rdispls, forward_send, forward_.sdispls};

    if (uniform_ && n % size_ != 0)
      throw std::invalid_argument("--exchange " + variant + " needs --n divisible by the ranks (even blocks)");
    if (variant.rfind(alltoall_prefix, 0) == 0) {
      // mpix-rma, step 2b, even blocks: a persistent Alltoall per
      // direction, made once over buffers that stay put.
      const std::string algorithm = variant.substr(alltoall_prefix.size());
      std::optional<mpix::Info> info;
      if (algorithm != "auto") info.emplace().set("mpix_alltoall_algorithm", algorithm);
      const mpix::Info* hints = info ? &*info : nullptr;
      const int block = forward_.sendcounts[0];
      forward_request_ = &forward_alltoall_.emplace(packed_x_, block, packed_y_, block, xcomm, hints);
      backward_request_ = &backward_alltoall_.emplace(packed_y_, block, packed_x_, block, xcomm, hints);
    } else if (variant != "mpi" && variant != "mpi_alltoall") {
      // mpix-rma, step 2b: one persistent request per direction, made once
      // over buffers that stay put; every iteration reuses both.
      std::optional<mpix::Info> info;
      if (variant != "auto") info.emplace().set("mpix_alltoallv_algorithm", variant);
      const mpix::Info* hints = info ? &*info : nullptr;
      forward_request_ = &forward_alltoallv_.emplace(packed_x_, forward_.sendcounts, forward_.sdispls, packed_y_,
                                                      forward_.recvcounts, forward_.rdispls, xcomm, hints);
      backward_request_ = &backward_alltoallv_.emplace(packed_y_, backward_.sendcounts, backward_.sdispls, packed_x_,
                                                       backward_.recvcounts, backward_.rdispls, xcomm, hints);
    }

    // FFTW_MEASURE overwrites the arrays: plan before filling them.
    const int nn[2] = {static_cast<int>(n), static_cast<int>(n)};
    const int n1 = static_cast<int>(n);
    plane_forward_.reset(fftw_plan_many_dft(2, nn, static_cast<int>(nx_), as_fftw(xslab_.data()), nullptr, 1,
                                            static_cast<int>(n * n), as_fftw(xslab_.data()), nullptr, 1,
                                            static_cast<int>(n * n), FFTW_FORWARD, fftw_flags));
    plane_backward_.reset(fftw_plan_many_dft(2, nn, static_cast<int>(nx_), as_fftw(xslab_.data()), nullptr, 1,
                                             static_cast<int>(n * n), as_fftw(xslab_.data()), nullptr, 1,
                                             static_cast<int>(n * n), FFTW_BACKWARD, fftw_flags));
    line_forward_.reset(fftw_plan_many_dft(1, &n1, static_cast<int>(ny_ * n), as_fftw(yslab_.data()), nullptr, 1, n1,
                                           as_fftw(yslab_.data()), nullptr, 1, n1, FFTW_FORWARD, fftw_flags));
    line_backward_.reset(fftw_plan_many_dft(1, &n1, static_cast<int>(ny_ * n), as_fftw(yslab_.data()), nullptr, 1,
                                            n1, as_fftw(yslab_.data()), nullptr, 1, n1, FFTW_BACKWARD, fftw_flags));
    if ((nx_ > 0 && (!plane_forward_ || !plane_backward_)) || (ny_ > 0 && (!line_forward_ || !line_backward_)))
      throw std::runtime_error("FFTW could not plan the transforms");
  }

  void fill_input() {
    const long x0 = planes_.first(rank_);
    for (long x = 0; x < nx_; ++x)
      for (long y = 0; y < n_; ++y)
        for (long z = 0; z < n_; ++z) xslab_[(x * n_ + y) * n_ + z] = input_value(x0 + x, y, z, n_);
  }

  // x-slabs [x][y][z] in, y-slabs [y][z][x] out (unnormalised, as FFTW).
  void forward() {
    if (nx_ > 0) fftw_execute(plane_forward_.get());
    // Pack: to rank s, my x-planes' rows of its y-range, in (x, y, z) order.
    for (int s = 0; s < size_; ++s) {
      const long y0 = planes_.first(s), ny = planes_.count(s);
      Complex* block = packed_x_.data() + forward_.sdispls[s];
      for (long x = 0; x < nx_; ++x)
        std::memcpy(block + x * ny * n_, &xslab_[(x * n_ + y0) * n_], sizeof(Complex) * ny * n_);
    }
    exchange(forward_request_, packed_x_, packed_y_, forward_);
    // Unpack: from rank s, its x-planes of my y-range.
    for (int s = 0; s < size_; ++s) {
      const long x0 = planes_.first(s), nx = planes_.count(s);
      const Complex* block = packed_y_.data() + forward_.rdispls[s];
      for (long x = 0; x < nx; ++x)
        for (long y = 0; y < ny_; ++y)
          for (long z = 0; z < n_; ++z) yslab_[(y * n_ + z) * n_ + x0 + x] = block[(x * ny_ + y) * n_ + z];
    }
    if (ny_ > 0) fftw_execute(line_forward_.get());
  }

  // y-slabs in, x-slabs out, scaled by 1/N^3 so that backward(forward(f)) = f.
  void backward() {
    if (ny_ > 0) fftw_execute(line_backward_.get());
    // Pack: to rank s, the x-range it owns of my lines, in (y, z, x) order.
    for (int s = 0; s < size_; ++s) {
      const long x0 = planes_.first(s), nx = planes_.count(s);
      Complex* block = packed_y_.data() + backward_.sdispls[s];
      for (long line = 0; line < ny_ * n_; ++line)
        std::memcpy(block + line * nx, &yslab_[line * n_ + x0], sizeof(Complex) * nx);
    }
    exchange(backward_request_, packed_y_, packed_x_, backward_);
    // Unpack: from rank s, my x-planes' rows of its y-range.
    const double scale = 1.0 / static_cast<double>(n_ * n_ * n_);
    for (int s = 0; s < size_; ++s) {
      const long y0 = planes_.first(s), ny = planes_.count(s);
      const Complex* block = packed_x_.data() + backward_.rdispls[s];
      for (long y = 0; y < ny; ++y)
        for (long z = 0; z < n_; ++z)
          for (long x = 0; x < nx_; ++x) xslab_[(x * n_ + y0 + y) * n_ + z] = scale * block[(y * n_ + z) * nx_ + x];
    }
    if (nx_ > 0) fftw_execute(plane_backward_.get());
  }

  // Seconds spent in the exchange since the last call, and restarts the count.
  double take_exchange_seconds() { return std::exchange(exchange_seconds_, 0.0); }

  std::string algorithm() const {
    if (forward_request_ != nullptr) return forward_request_->algorithm();
    return uniform_ ? "MPI_Alltoall" : "MPI_Alltoallv";
  }

  // max |forward(input) - serial FFTW 3D| / max |serial|, on every rank.
  double error_against_serial() {
    fill_input();
    forward();
    std::vector<int> counts(size_), displs;
    for (int s = 0; s < size_; ++s) counts[s] = static_cast<int>(planes_.count(s) * n_ * n_);
    displs = displacements(counts);
    std::vector<Complex> gathered(rank_ == 0 ? n_ * n_ * n_ : 0);
    MPI_Gatherv(yslab_.data(), counts[rank_], MPI_CXX_DOUBLE_COMPLEX, gathered.data(), counts.data(), displs.data(),
                MPI_CXX_DOUBLE_COMPLEX, 0, comm_);
    double error = 0.0;
    if (rank_ == 0) {
      std::vector<Complex> reference(n_ * n_ * n_);
      for (long x = 0; x < n_; ++x)
        for (long y = 0; y < n_; ++y)
          for (long z = 0; z < n_; ++z) reference[(x * n_ + y) * n_ + z] = input_value(x, y, z, n_);
      const int n = static_cast<int>(n_);
      Plan serial(fftw_plan_dft_3d(n, n, n, as_fftw(reference.data()), as_fftw(reference.data()), FFTW_FORWARD,
                                   FFTW_ESTIMATE));
      fftw_execute(serial.get());
      double largest = 0.0, worst = 0.0;
      for (long x = 0; x < n_; ++x)
        for (long y = 0; y < n_; ++y)
          for (long z = 0; z < n_; ++z) {
            const Complex want = reference[(x * n_ + y) * n_ + z];
            largest = std::max(largest, std::abs(want));
            worst = std::max(worst, std::abs(gathered[(y * n_ + z) * n_ + x] - want));  // y-slabs: [y][z][x]
          }
      error = worst / largest;
    }
    MPI_Bcast(&error, 1, MPI_DOUBLE, 0, comm_);
    return error;
  }

  // max |x-slabs - input| / max |input| over all ranks.
  double error_against_input() const {
    const long x0 = planes_.first(rank_);
    double worst = 0.0, largest = 0.0;
    for (long x = 0; x < nx_; ++x)
      for (long y = 0; y < n_; ++y)
        for (long z = 0; z < n_; ++z) {
          const Complex want = input_value(x0 + x, y, z, n_);
          largest = std::max(largest, std::abs(want));
          worst = std::max(worst, std::abs(xslab_[(x * n_ + y) * n_ + z] - want));
        }
    double both[2] = {worst, largest};
    MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_DOUBLE, MPI_MAX, comm_);
    return both[0] / both[1];
  }

 private:
  struct Transpose {
    std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  };

  void exchange(mpix::Request* request, Packed& send, Packed& recv, const Transpose& t) {
    const double begin = MPI_Wtime();
    if (request != nullptr) {
      // mpix-rma, step 3: start and wait the request made at set-up; the
      // packed data was written just before, the result is read just after.
      request->start();
      request->wait();
    } else if (uniform_) {
      MPI_Alltoall(send.data(), t.sendcounts[0], MPI_CXX_DOUBLE_COMPLEX, recv.data(), t.recvcounts[0],
                   MPI_CXX_DOUBLE_COMPLEX, comm_);
    } else {
      MPI_Alltoallv(send.data(), t.sendcounts.data(), t.sdispls.data(), MPI_CXX_DOUBLE_COMPLEX, recv.data(),
                    t.recvcounts.data(), t.rdispls.data(), MPI_CXX_DOUBLE_COMPLEX, comm_);
    }
    exchange_seconds_ += MPI_Wtime() - begin;
  }

  static inline const std::string alltoall_prefix = "alltoall:";

  long n_;
  MPI_Comm comm_;
  bool uniform_;  // an Alltoall variant: even blocks
  int rank_ = 0, size_ = 1;
  example::BlockDistribution planes_{0, 1};
  long nx_ = 0, ny_ = 0;
  std::vector<Complex> xslab_, yslab_;
  Packed packed_x_, packed_y_;
  Transpose forward_, backward_;
  // The persistent requests of an mpix-rma variant, and the two that run.
  std::optional<mpix::Alltoallv> forward_alltoallv_, backward_alltoallv_;
  std::optional<mpix::Alltoall> forward_alltoall_, backward_alltoall_;
  mpix::Request* forward_request_ = nullptr;
  mpix::Request* backward_request_ = nullptr;
  Plan plane_forward_, plane_backward_, line_forward_, line_backward_;
  double exchange_seconds_ = 0.0;
};

int run(int argc, char** argv) {
  const example::Options options(argc, argv,
                                 {{"n", "64"},
                                  {"iterations", "10"},
                                  {"rounds", "5"},
                                  {"exchange", "mpi,auto"},
                                  {"planner", "measure"},
                                  {"csv", ""}});
  const long n = options.number("n");
  const long iterations = options.number("iterations"), rounds = options.number("rounds");
  const std::vector<std::string> variants = options.list("exchange");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (n < size || iterations < 1 || rounds < 1 || variants.empty())
    throw std::invalid_argument("need --n >= ranks, --iterations >= 1, --rounds >= 1 and at least one --exchange");
  const unsigned flags = options.text("planner") == "estimate" ? FFTW_ESTIMATE : FFTW_MEASURE;

  // mpix-rma, step 1: one mpix::Comm for the communicator, made once.
  const mpix::Comm xcomm(MPI_COMM_WORLD);

  std::vector<std::unique_ptr<SlabFft>> ffts;
  std::vector<std::string> algorithms;
  bool correct = true;
  for (const std::string& variant : variants) {
    ffts.push_back(std::make_unique<SlabFft>(n, MPI_COMM_WORLD, xcomm, variant, flags));
    algorithms.push_back(ffts.back()->algorithm());
    const double forward_error = ffts.back()->error_against_serial();
    ffts.back()->backward();
    const double roundtrip_error = ffts.back()->error_against_input();
    if (rank == 0)
      std::printf("fft3d: %-18s forward vs serial FFTW %.2e, forward+backward vs input %.2e\n", variant.c_str(),
                  forward_error, roundtrip_error);
    correct = correct && forward_error <= 1e-12 && roundtrip_error <= 1e-12;
  }

  // Interleaved rounds: every variant runs once per round, so that the
  // machine's slow and fast phases fall on all of them alike.
  std::vector<example::Timings> timings(variants.size());
  for (long round = 0; round < rounds; ++round) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      SlabFft& fft = *ffts[v];
      fft.fill_input();
      fft.forward();  // warm-up pair, untimed
      fft.backward();
      fft.take_exchange_seconds();
      MPI_Barrier(MPI_COMM_WORLD);
      const double begin = MPI_Wtime();
      for (long it = 0; it < iterations; ++it) {
        fft.forward();
        fft.backward();
      }
      const double elapsed = MPI_Wtime() - begin;
      timings[v].total.push_back(example::max_over_ranks(elapsed / iterations, MPI_COMM_WORLD));
      timings[v].exchange.push_back(
          example::max_over_ranks(fft.take_exchange_seconds() / iterations, MPI_COMM_WORLD));
      // After timing: forward + backward pairs still give back the input.
      const double error = fft.error_against_input();
      if (error > 1e-12) {
        correct = false;
        if (rank == 0) std::printf("fft3d: %s: after timing, error %.2e\n", variants[v].c_str(), error);
      }
    }
  }
  if (rank == 0) {
    std::printf("fft3d: N=%ld on %d ranks, %ld forward+backward pairs x %ld rounds (medians, slowest rank)\n", n,
                size, iterations, rounds);
    example::report("fft3d", options.text("csv"), "n=" + std::to_string(n), variants, algorithms, timings,
                    "pair us");
    std::printf("fft3d: %s\n", correct ? "ok" : "WRONG RESULTS");
  }
  return correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_with_mpi(argc, argv, "fft3d", [](int c, char** v) {
    const int status = run(c, v);
    fftw_cleanup();
    return status;
  });
}
