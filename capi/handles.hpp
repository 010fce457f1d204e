// The objects behind the C API's opaque handles. Each is a Resource, so the
// library destroys whatever the user did not free when MPI_Finalize starts.
#pragma once

#include <memory>
#include <string>

#include "src/comm.hpp"
#include "src/info.hpp"
#include "src/library.hpp"
#include "src/request.hpp"

struct MPIX_Comm : mpix::Resource {
  explicit MPIX_Comm(std::shared_ptr<const mpix::Comm> c) : comm(std::move(c)) {}
  // Freeing the communicator (collective) closes its components: the
  // windows and node channels they keep for reuse are freed.
  ~MPIX_Comm() override { comm->close_components(); }
  std::shared_ptr<const mpix::Comm> comm;  // shared with the requests built on it
};

namespace mpix {
// What MPIX_Comm_init returns, built under config, which every rank passes
// alike: the C API takes it from the environment (agreed), tests and tools
// build one in code. Collective over comm.
MPIX_Comm* comm_init(MPI_Comm comm, const Config& config);
}  // namespace mpix

struct MPIX_Info : mpix::Resource {
  mpix::Info info;
};

struct MPIX_Request : mpix::Resource {
  explicit MPIX_Request(std::unique_ptr<mpix::Request> r) : request(std::move(r)) {}
  std::unique_ptr<mpix::Request> request;
};

