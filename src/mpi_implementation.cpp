#include "src/mpi_implementation.hpp"

#include "src/error.hpp"

#include <string>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
// SMPI's mpi.h (guarded by SMPI_H) leaves SimGrid's version out.
#if defined(SMPI_H)
#define MPIX_SIMGRID_SMPI 1
#include <simgrid/host.h>
#include <simgrid/version.h>
#endif

namespace mpix::mpi_implementation {

#define MPIX_STRINGIFY_(x) #x
#define MPIX_STRINGIFY(x) MPIX_STRINGIFY_(x)

const char* name() {
#if defined(MPIX_SIMGRID_SMPI)
  return "SimGrid " MPIX_STRINGIFY(SIMGRID_VERSION_MAJOR) "." MPIX_STRINGIFY(SIMGRID_VERSION_MINOR) " SMPI";
#elif defined(MPICH_VERSION)
  return "MPICH " MPICH_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
  return "Open MPI " MPIX_STRINGIFY(OMPI_MAJOR_VERSION) "." MPIX_STRINGIFY(OMPI_MINOR_VERSION) "." MPIX_STRINGIFY(
      OMPI_RELEASE_VERSION);
#else
  return "an MPI " MPIX_STRINGIFY(MPI_VERSION) "." MPIX_STRINGIFY(MPI_SUBVERSION) " library";
#endif
}

std::string family_of(const std::string& name) {
  const std::size_t version = name.find_first_of("0123456789");
  std::string family = name.substr(0, version);
  while (!family.empty() && family.back() == ' ') family.pop_back();
  return family;
}

bool polls_cost_time() {
#if defined(MPIX_SIMGRID_SMPI)
  return true;
#else
  return false;
#endif
}

const char* ranks_are_not_processes() {
#if defined(MPIX_SIMGRID_SMPI)
  return "SimGrid's SMPI runs every rank as an actor of one process, and switches between them only inside MPI "
         "calls";
#else
  return nullptr;
#endif
}

std::string simulated_host() {
#if defined(MPIX_SIMGRID_SMPI)
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  if (MPI_Get_processor_name(host, &length) == MPI_SUCCESS) return std::string(host, static_cast<std::size_t>(length));
#endif
  return {};
}

int simulated_host_cores() {
#if defined(MPIX_SIMGRID_SMPI)
  return sg_host_core_count(sg_host_self());
#else
  return 0;
#endif
}

void add_error_class(const char* text, int* error_class, int* code) {
#if defined(MPIX_SIMGRID_SMPI)
  (void)text;
  static int added = 0;
  *error_class = *code = MPI_ERR_LASTCODE + 1 + added++;
#else
  mpi_check(MPI_Add_error_class(error_class), "MPI_Add_error_class");
  mpi_check(MPI_Add_error_string(*error_class, text), "MPI_Add_error_string");
  mpi_check(MPI_Add_error_code(*error_class, code), "MPI_Add_error_code");
  mpi_check(MPI_Add_error_string(*code, text), "MPI_Add_error_string");
#endif
}

#if !defined(MPIX_SIMGRID_SMPI)
namespace {
// Whether MPI_Error_string gives code the text just set, and MPI_Error_class
// gives error_class.
bool reads_back(int error_class, int code) {
  static const char probe[] = "mpix-rma: error code probe";
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0, read_class = -1;
  return MPI_Add_error_string(code, probe) == MPI_SUCCESS && MPI_Error_string(code, text, &length) == MPI_SUCCESS &&
         std::string(text, static_cast<std::size_t>(length)) == probe &&
         MPI_Error_class(code, &read_class) == MPI_SUCCESS && read_class == error_class;
}
}  // namespace
#endif

bool add_error_code(int error_class, int* code) {
#if defined(MPIX_SIMGRID_SMPI)
  (void)error_class;
  (void)code;
  return false;
#else
  return MPI_Add_error_code(error_class, code) == MPI_SUCCESS && reads_back(error_class, *code);
#endif
}

bool is_fatal(MPI_Errhandler handler) {
#if MPI_VERSION >= 4
  if (handler == MPI_ERRORS_ABORT) return true;
#endif
  return handler == MPI_ERRORS_ARE_FATAL;
}

int call_errhandler(MPI_Comm comm, int code) {
#if defined(MPIX_SIMGRID_SMPI)
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
    const bool returns = handler == MPI_ERRORS_RETURN, fatal = is_fatal(handler);
    MPI_Errhandler_free(&handler);
    if (returns) return MPI_SUCCESS;
    if (fatal) return MPI_Abort(comm, code);
  }
#endif
  return MPI_Comm_call_errhandler(comm, code);
}

int begin_epoch_barrier(MPI_Comm comm, MPI_Request* request) {
#if defined(MPIX_SIMGRID_SMPI)
  *request = MPI_REQUEST_NULL;
  return MPI_Barrier(comm);
#else
  return MPI_Ibarrier(comm, request);
#endif
}

const char* one_sided_hangs_without_cma() {
#if defined(OPEN_MPI) && OPEN_MPI
  return "Open MPI's one-sided transport (osc/rdma over btl/vader) retries a refused single copy forever";
#else
  return nullptr;
#endif
}

AlltoallvInit persistent_alltoallv() {
#if MPI_VERSION >= 4
  return &MPI_Alltoallv_init;
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
  // Open MPI 4.1 names it MPIX_Alltoallv_init, the name of this library's
  // own entry point (another signature): call it by its profiling name,
  // which nothing here shadows.
  return &PMPIX_Alltoallv_init;
#else
  return nullptr;
#endif
}

const char* persistent_alltoallv_why_not() {
  return persistent_alltoallv() != nullptr ? "" : "this MPI has no persistent Alltoallv (MPI-4 MPI_Alltoallv_init)";
}

AlltoallvInit persistent_neighbor_alltoallv() {
#if MPI_VERSION >= 4
  return &MPI_Neighbor_alltoallv_init;
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
  return &PMPIX_Neighbor_alltoallv_init;  // as persistent_alltoallv(): this library owns the MPIX_ name
#else
  return nullptr;
#endif
}

const char* persistent_neighbor_alltoallv_why_not() {
  return persistent_neighbor_alltoallv() != nullptr
             ? ""
             : "this MPI has no persistent neighbourhood Alltoallv (MPI-4 MPI_Neighbor_alltoallv_init)";
}

AlltoallInit persistent_alltoall() {
#if MPI_VERSION >= 4
  return &MPI_Alltoall_init;
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
  return &PMPIX_Alltoall_init;  // as persistent_alltoallv(): this library owns the MPIX_ name
#else
  return nullptr;
#endif
}

const char* persistent_alltoall_why_not() {
  return persistent_alltoall() != nullptr ? "" : "this MPI has no persistent Alltoall (MPI-4 MPI_Alltoall_init)";
}

void make_progress() {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

}  // namespace mpix::mpi_implementation
