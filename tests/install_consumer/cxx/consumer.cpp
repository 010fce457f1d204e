// A C++ user program: the persistent Alltoallv and Alltoall through
// <mpix/mpix.hpp>, std::complex<double> vectors, checked every iteration.
#include <mpix/mpix.hpp>

#include <complex>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int errors = 0, rank = 0;
  {
    const mpix::Comm comm(MPI_COMM_WORLD);
    const int size = comm.size();
    rank = comm.rank();
    std::vector<int> counts(size, 2), displs(size);
    for (int i = 0; i < size; ++i) displs[i] = 2 * i;
    std::vector<std::complex<double>> send(2 * size), recv(2 * size), recv_uniform(2 * size);
    mpix::Alltoallv exchange(send, counts, displs, recv, counts, displs, comm);
    mpix::Alltoall uniform(send, 2, recv_uniform, 2, comm);
    for (int it = 0; it < 10; ++it) {
      for (int i = 0; i < 2 * size; ++i) send[i] = {1000.0 * it + 10 * rank + i / 2, static_cast<double>(i % 2)};
      exchange.start();
      uniform.start();
      exchange.wait();
      uniform.wait();
      for (int i = 0; i < 2 * size; ++i) {
        const std::complex<double> expected(1000.0 * it + 10 * (i / 2) + rank, static_cast<double>(i % 2));
        errors += (recv[i] != expected) + (recv_uniform[i] != expected);
      }
    }
  }  // the request, then the communicator, freed here on every rank
  if (rank == 0) std::printf("consumer (C++): %s\n", errors ? "WRONG DATA" : "ok");
  MPI_Finalize();
  return errors != 0;
}
