// mpix_info: what this mpix-rma build is and how it is configured, like
// ompi_info / ucc_info. Runs standalone or under mpiexec (then it also shows
// the node layout of MPI_COMM_WORLD).
#include <mpix/mpix.h>

#include <cstdio>
#include <string>
#include <vector>

#include "collectives/registry.hpp"
#include "collectives/tuning_parameters.hpp"
#include "src/config.hpp"
#include "src/handles.hpp"
#include "src/library.hpp"

namespace {

void print_layout(const mpix::Comm& comm) {
  std::vector<int> node_of(comm.size());
  for (int r = 0; r < comm.size(); ++r) node_of[r] = comm.node_of(r);
  std::printf("Node layout: %d rank(s) on %d node(s)\n", comm.size(), comm.num_nodes());
  for (int node = 0; node < comm.num_nodes(); ++node) {
    std::printf("  node %d:", node);
    for (int r = 0; r < comm.size(); ++r) {
      if (node_of[r] == node) std::printf(" %d", r);
    }
    std::printf("\n");
  }
}

void print_variables(const mpix::Configuration& configuration) {
  std::printf("\nEnvironment variables:\n");
  for (const mpix::VariableSetting& s : configuration.settings()) {
    std::printf("  %s = '%s'%s\n      type %s, default '%s', accepted: %s; %s\n      %s\n", s.spec->name,
                s.value.c_str(), s.from_environment ? " (from environment)" : "", s.spec->type,
                s.spec->default_value, s.spec->accepted,
                s.spec->scope == mpix::Scope::per_rank ? "may differ per rank"
                                                       : "the same on every rank (MPIX_Comm_init checks)",
                s.spec->description);
  }
  for (const std::string& name : configuration.unknown_variables())
    std::printf("  warning: %s is set but is not an mpix-rma variable\n", name.c_str());
}

void print_algorithms() {
  std::printf("\nAlltoallv algorithms (MPIX_ALLTOALLV_ALGORITHM / info key mpix_alltoallv_algorithm):\n");
  for (const mpix::AlltoallvAlgorithm* a : mpix::alltoallv_algorithms())
    std::printf("  %-20s %s\n", a->name, a->description);
}

// The selector's parameters: where they come from (MPIX_TUNING_FILE or the
// built-in measurements), or why they cannot be used.
void print_tuning() {
  std::printf("\nSelector (auto) parameters:\n");
  try {
    const mpix::TuningParameters& t = mpix::tuning_parameters();
    std::printf("  %s\n  calibrated at %d ranks, timed as the %s loop; algorithms with parameters:", t.source.c_str(),
                t.calibration_ranks, t.loop.c_str());
    for (const auto& [name, parameters] : t.algorithms) std::printf(" %s", name.c_str());
    std::printf("\n");
  } catch (const mpix::Error& e) {
    std::printf("  unusable: %s\n", e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPIX_Comm* xcomm = nullptr;
  const int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != MPI_SUCCESS) {
    char message[MPIX_MAX_ERROR_STRING];
    int len = 0;
    MPIX_Error_string(rc, message, &len);
    if (rank == 0) std::fprintf(stderr, "mpix_info: %s\n", message);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    const std::string text(version, len);
    std::printf("mpix-rma %s\nMPI library: %s\n", MPIX_RMA_VERSION_STRING, text.substr(0, text.find('\n')).c_str());
    mpix::Library& library = mpix::Library::get();
    std::printf("Node hardware (hwloc): %s\n", library.topology().summary().c_str());
    print_layout(*xcomm->comm);
    print_variables(library.configuration());
    print_algorithms();
    print_tuning();
  }
  MPIX_Comm_free(&xcomm);
  MPI_Finalize();
  return 0;
}
