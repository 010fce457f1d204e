// The C API: argument plumbing and exception -> error code conversion, and
// nothing else. Errors go through the MPI error handler of the communicator
// involved (MPI_COMM_SELF when there is none), as MPI's own calls do.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "collectives/family_init.hpp"
#include "families.hpp"  // generated: every family of collectives/families.def
#include "collectives/sparse_exchange.hpp"
#include "collectives/registry.hpp"
#include "node/node_channel.hpp"
#include "src/agree.hpp"
#include "capi/guard.hpp"
#include "src/mpi_implementation.hpp"
#include "capi/handles.hpp"

using mpix::Error;
using mpix::Library;
using mpix::guarded;
using mpix::mpi_usable;
using mpix::require;

namespace {

using mpix::is_live;
using mpix::live;

MPI_Comm comm_of(const MPIX_Request* request) {
  return is_live(request) ? request->request->comm().user() : MPI_COMM_NULL;
}

MPI_Comm comm_of(const MPIX_Comm* xcomm) { return is_live(xcomm) ? xcomm->comm->user() : MPI_COMM_NULL; }

mpix::Request& request_of(MPIX_Request* request, const char* argument = "request") {
  return *live(request, MPI_ERR_REQUEST, argument, "MPIX_Request").request;
}

void copy_name(const std::string& name, char* out, int* resultlen) {
  const std::size_t n = std::min(name.size(), static_cast<std::size_t>(MPIX_MAX_OBJECT_NAME - 1));
  std::memcpy(out, name.data(), n);
  out[n] = '\0';
  *resultlen = static_cast<int>(n);
}

// What the MPIX_* settings make every rank share (src/config.hpp).
std::vector<mpix::NamedValue> settings_every_rank_shares(Library& library) {
  std::vector<mpix::NamedValue> shared;
  for (auto& [name, value] : library.configuration().shared_values()) shared.push_back({name, value});
  return shared;
}

void log_layout(const mpix::Comm& comm) {
  std::string nodes;
  for (int r = 0; r < comm.size(); ++r) nodes += (r ? " " : "") + std::to_string(comm.node_of(r));
  std::fprintf(stderr, "mpix-rma: communicator of %d ranks on %d nodes; node of each rank: %s\n", comm.size(),
               comm.num_nodes(), nodes.c_str());
  std::fprintf(stderr, "mpix-rma: %s\n", mpix::ChannelSettings::waiting_summary(comm).c_str());
}

}  // namespace

namespace mpix {

MPIX_Comm* comm_init(MPI_Comm comm, const Config& config) {
  auto made = std::make_unique<MPIX_Comm>(std::make_shared<const Comm>(comm, config));
  const Comm& made_comm = *made->comm;
  if (made_comm.rank() == 0 && (config.verbose >= 2 || (config.verbose >= 1 && made_comm.oversubscribed())))
    log_layout(made_comm);
  return Library::get().adopt(std::move(made));
}

// A family's public listing: its registry rows, by index.
template <class Row>
int count_rows(const char* function, const std::vector<const Row*>& rows, int* count) {
  return mpix::guarded(function, MPI_COMM_NULL, [&] {
    mpix::require(count != nullptr, MPI_ERR_ARG, "count is NULL");
    *count = static_cast<int>(rows.size());
  });
}

template <class Row>
int describe_row(const char* function, const std::vector<const Row*>& rows, int index, const char** name,
                 const char** description, int* capabilities) {
  return mpix::guarded(function, MPI_COMM_NULL, [&] {
    mpix::require(index >= 0 && index < static_cast<int>(rows.size()), MPI_ERR_ARG,
                  "index = " + std::to_string(index) + " is outside [0, " + std::to_string(rows.size()) + ")");
    if (name != nullptr) *name = rows[index]->name;
    if (description != nullptr) *description = rows[index]->description;
    if (capabilities != nullptr) *capabilities = static_cast<int>(rows[index]->capabilities);
  });
}

}  // namespace mpix

namespace {

// Every family's MPIX_<Family>_init, and the paper's entry points, which
// fix the algorithm (forced: a registry name, or nullptr to choose as
// usual): the family's request over the user's arguments.
template <class Family>
int init_as(const char* function, const Family& family, const char* forced, const typename Family::UserArgs& user,
            MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** request) {
  return guarded(function, comm_of(xcomm), [&] {
    live(xcomm, MPI_ERR_COMM, "xcomm", "MPIX_Comm");
    mpix::Info hints = info ? live(info, MPI_ERR_INFO, "info", "MPIX_Info").info : mpix::Info{};
    if (forced != nullptr) hints.set(family.info_key, forced);
    auto made = mpix::init_request(family, user, xcomm->comm, &hints);
    *request = Library::get().adopt(std::make_unique<MPIX_Request>(std::move(made)));
  });
}

}  // namespace

extern "C" {

int MPIX_Error_class_of(int kind) {
  try {
    return mpix::error_class(kind);
  } catch (const Error&) {
    return MPI_ERR_OTHER;
  }
}

int MPIX_Get_version(int* major, int* minor, int* patch) {
  if (major == nullptr || minor == nullptr || patch == nullptr) return MPI_ERR_ARG;
  *major = MPIX_RMA_VERSION_MAJOR;
  *minor = MPIX_RMA_VERSION_MINOR;
  *patch = MPIX_RMA_VERSION_PATCH;
  return MPI_SUCCESS;
}

int MPIX_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  const std::string text = std::string("mpix-rma ") + MPIX_RMA_VERSION_STRING + " (built with " +
                           mpix::mpi_implementation::name() + ")";
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(MPIX_MAX_LIBRARY_VERSION_STRING - 1));
  std::memcpy(version, text.data(), n);
  version[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

static_assert(MPIX_ALGORITHM_MPI_BASELINE == mpix::capability::mpi_baseline &&
                  MPIX_ALGORITHM_MPI_PERSISTENT == mpix::capability::mpi_persistent &&
                  MPIX_ALGORITHM_SELECTS == mpix::capability::selects &&
                  MPIX_ALGORITHM_CONTIGUOUS_TYPES == mpix::capability::contiguous_types &&
                  MPIX_ALGORITHM_WINDOW == mpix::capability::window &&
                  MPIX_ALGORITHM_WINDOW_OFF_NODE == mpix::capability::window_off_node &&
                  MPIX_ALGORITHM_NODE_CHANNEL == mpix::capability::node_channel &&
                  MPIX_ALGORITHM_NODE_AGGREGATION == mpix::capability::node_aggregation &&
                  MPIX_ALGORITHM_MPI_PROGRESS == mpix::capability::mpi_progress,
              "mpix.h's MPIX_ALGORITHM_* bits are the registry's capabilities");

// Every family's C functions, one set per row of collectives/families.def:
// its init, from the row's parameters and their names (the fields of its
// UserArgs before the request), and its listing.
#define MPIX_UNPARENTHESIZED(...) __VA_ARGS__
#define MPIX_FAMILY(folder, Name, rows_namespace, parameters, names)                                        \
  int MPIX_##Name##_init(MPIX_UNPARENTHESIZED parameters, MPIX_Comm* xcomm, MPIX_Info* info,                 \
                         MPIX_Request** request) {                                                           \
    return init_as(__func__, mpix::folder##_family, nullptr, {MPIX_UNPARENTHESIZED names, request}, xcomm,   \
                   info, request);                                                                           \
  }                                                                                                         \
  int MPIX_##Name##_algorithm_count(int* count) {                                                           \
    return mpix::count_rows(__func__, mpix::folder##_algorithms(), count);                                  \
  }                                                                                                         \
  int MPIX_##Name##_algorithm(int index, const char** name, const char** description, int* capabilities) { \
    return mpix::describe_row(__func__, mpix::folder##_algorithms(), index, name, description, capabilities); \
  }
#include "collectives/families.def"
#undef MPIX_FAMILY
#undef MPIX_UNPARENTHESIZED

int MPIX_Error_string(int errorcode, char* string, int* resultlen) {
  if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  std::string message;
  if (!mpix::recall_error(errorcode, message)) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    const int rc = MPI_Error_string(errorcode, text, &len);
    if (rc != MPI_SUCCESS) return rc;
    message.assign(text, len);
  }
  const std::size_t n = std::min(message.size(), static_cast<std::size_t>(MPIX_MAX_ERROR_STRING - 1));
  std::memcpy(string, message.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPIX_Comm_init(MPIX_Comm** xcomm, MPI_Comm comm) {
  return guarded(__func__, comm, [&] {
    require(xcomm != nullptr, MPI_ERR_ARG, "xcomm is NULL");
    require(comm != MPI_COMM_NULL, MPI_ERR_COMM, "comm is MPI_COMM_NULL");
    // Before any collective: the agreement below is an intracommunicator
    // reduction that MPI rejects on an intercommunicator with its own,
    // unrelated error. Every rank of an intercommunicator sees it as one.
    int inter = 0;
    mpix::mpi_check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    require(!inter, MPI_ERR_COMM, "comm is an intercommunicator; only intracommunicators are supported");
    Library& library = Library::get();
    mpix::Config config;
    // A bad MPIX_* value is the same error on every rank, so none proceeds.
    mpix::agreed(comm, [&] { config = library.config(); });
    // So is a value that differs between ranks where it changes what they
    // do together (an MPMD launch, a per-rank wrapper script): the node
    // split would otherwise hang.
    mpix::agree_on_values(comm, settings_every_rank_shares(library), mpix::error_code(MPIX_ERRKIND_CONFIG));
    MPIX_Comm* made = mpix::comm_init(comm, config);
    if (made->comm->rank() == 0) library.warn_unknown_variables();
    *xcomm = made;
  });
}

int MPIX_Comm_free(MPIX_Comm** xcomm) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(xcomm != nullptr, MPI_ERR_ARG, "xcomm is NULL");
    if (*xcomm == nullptr) return;
    require(Library::get().release(*xcomm), MPI_ERR_COMM, "xcomm is not a live MPIX_Comm (already freed?)");
    *xcomm = nullptr;
  });
}

int MPIX_Comm_get_comm(const MPIX_Comm* xcomm, MPI_Comm* comm) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(comm != nullptr, MPI_ERR_ARG, "comm is NULL");
    *comm = live(xcomm, MPI_ERR_COMM, "xcomm", "MPIX_Comm").comm->global();
  });
}

int MPIX_Comm_get_node(const MPIX_Comm* xcomm, int* node, int* node_rank, int* node_size, int* num_nodes) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    const mpix::Comm& c = *live(xcomm, MPI_ERR_COMM, "xcomm", "MPIX_Comm").comm;
    if (node) *node = c.node_id();
    if (node_rank) *node_rank = c.node_rank();
    if (node_size) *node_size = c.node_size();
    if (num_nodes) *num_nodes = c.num_nodes();
  });
}

int MPIX_Info_init(MPIX_Info** info) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(info != nullptr, MPI_ERR_ARG, "info is NULL");
    *info = Library::get().adopt(std::make_unique<MPIX_Info>());
  });
}

int MPIX_Info_set(MPIX_Info* info, const char* key, const char* value) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    live(info, MPI_ERR_INFO, "info", "MPIX_Info").info.set(key, value);
  });
}

int MPIX_Info_free(MPIX_Info** info) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(info != nullptr, MPI_ERR_ARG, "info is NULL");
    if (*info == nullptr) return;
    require(Library::get().release(*info), MPI_ERR_INFO, "info is not a live MPIX_Info (already freed?)");
    *info = nullptr;
  });
}

int MPIX_Info_get(const MPIX_Info* info, const char* key, int valuelen, char* value, int* flag) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    mpix::live(info, MPI_ERR_INFO, "info", "MPIX_Info");
    require(key != nullptr && flag != nullptr && (valuelen <= 0 || value != nullptr), MPI_ERR_ARG,
            "key, value or flag is NULL");
    auto v = info->info.get(key);
    *flag = v.has_value();
    if (!v || valuelen <= 0) return;
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  });
}

int MPIX_Dist_graph_create_sparse(MPI_Comm comm, int outdegree, const int destinations[], const int sendcounts[],
                                  MPI_Info info, int reorder, MPI_Comm* graph_comm) {
  return guarded(__func__, comm, [&] {
    require(comm != MPI_COMM_NULL, MPI_ERR_COMM, "comm is MPI_COMM_NULL");
    int inter = 0, size = 0;
    mpix::mpi_check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    require(!inter, MPI_ERR_COMM, "comm is an intercommunicator; only intracommunicators are supported");
    mpix::mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    std::vector<int> to, counts;
    // Checked on every rank and agreed before any rank sends: a bad
    // destination must not leave the others waiting in the discovery.
    mpix::agreed(comm, [&] {
      require(graph_comm != nullptr, MPI_ERR_ARG, "graph_comm is NULL");
      require(outdegree >= 0, MPI_ERR_ARG, "outdegree = " + std::to_string(outdegree) + " is negative");
      require(outdegree == 0 || destinations != nullptr, MPI_ERR_ARG, "destinations is NULL");
      require(outdegree == 0 || sendcounts != nullptr, MPI_ERR_ARG, "sendcounts is NULL");
      for (int i = 0; i < outdegree; ++i) {
        require(destinations[i] >= 0 && destinations[i] < size, MPI_ERR_RANK,
                "destinations[" + std::to_string(i) + "] = " + std::to_string(destinations[i]) +
                    " is not a rank of comm (size " + std::to_string(size) + ")");
        require(sendcounts[i] >= 0, MPI_ERR_COUNT,
                "sendcounts[" + std::to_string(i) + "] = " + std::to_string(sendcounts[i]) + " is negative");
      }
      to.assign(destinations, destinations + outdegree);
      counts.assign(sendcounts, sendcounts + outdegree);
    });
    const mpix::DiscoveredSources from = mpix::discover_sources(comm, to, counts);
    // Weighted on every rank (MPI requires all or none): a rank without
    // edges on one side passes MPI_WEIGHTS_EMPTY there.
    const int* source_weights = from.counts.empty() ? MPI_WEIGHTS_EMPTY : from.counts.data();
    const int* destination_weights = counts.empty() ? MPI_WEIGHTS_EMPTY : counts.data();
    mpix::mpi_check(MPI_Dist_graph_create_adjacent(comm, static_cast<int>(from.sources.size()), from.sources.data(),
                                                   source_weights, outdegree, to.data(), destination_weights, info,
                                                   reorder, graph_comm),
                    "MPI_Dist_graph_create_adjacent");
  });
}

int MPIX_Alltoallv_crs(int send_nnz, const int dest[], const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, const void* sendvals, int* recv_nnz, int** src, int** recvcounts,
                       int** rdispls, MPI_Datatype recvtype, void** recvvals, MPIX_Comm* xcomm, MPIX_Info* info) {
  return guarded(__func__, comm_of(xcomm), [&] {
    live(xcomm, MPI_ERR_COMM, "xcomm", "MPIX_Comm");
    const mpix::Info hints = info ? live(info, MPI_ERR_INFO, "info", "MPIX_Info").info : mpix::Info{};
    // Checked before the collective part, on every rank alike: the outputs
    // are this rank's own, so a NULL one fails here, before any rank sends.
    mpix::agreed(xcomm->comm->global(), [&] {
      require(recv_nnz != nullptr && src != nullptr && recvcounts != nullptr && rdispls != nullptr &&
                  recvvals != nullptr,
              MPI_ERR_ARG, "an output argument (recv_nnz, src, recvcounts, rdispls, recvvals) is NULL");
    });
    const mpix::SparseReceived got = mpix::alltoallv_crs(*xcomm->comm, send_nnz, dest, sendcounts, sdispls, sendtype,
                                                         sendvals, recvtype, &hints);
    // malloc'd, as MPIX_Free frees them; never NULL, even when empty.
    const auto copy = [](const void* from, std::size_t bytes) {
      void* to = std::malloc(std::max<std::size_t>(bytes, 1));
      if (to == nullptr) throw std::bad_alloc();
      if (bytes > 0) std::memcpy(to, from, bytes);
      return to;
    };
    const std::size_t n = got.sources.size();
    void* out[4] = {};
    try {
      out[0] = copy(got.sources.data(), n * sizeof(int));
      out[1] = copy(got.counts.data(), n * sizeof(int));
      out[2] = copy(got.displs.data(), n * sizeof(int));
      out[3] = copy(got.data.data(), got.data.size());
    } catch (...) {
      for (void* p : out) std::free(p);
      throw;
    }
    *recv_nnz = static_cast<int>(n);
    *src = static_cast<int*>(out[0]);
    *recvcounts = static_cast<int*>(out[1]);
    *rdispls = static_cast<int*>(out[2]);
    *recvvals = out[3];
  });
}

int MPIX_Free(void* memory) {
  std::free(memory);
  return MPI_SUCCESS;
}

int alltoallv_rma_winfence_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** request) {
  return init_as(__func__, mpix::alltoallv_family, "fence",
                 {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, request}, xcomm, info,
                 request);
}

int alltoallv_rma_lock_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** request) {
  return init_as(__func__, mpix::alltoallv_family, "lock",
                 {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, request}, xcomm, info,
                 request);
}

int MPIX_Start(MPIX_Request* request) {
  return guarded(__func__, [request] { return comm_of(request); }, [&] {
    request_of(request).start();
  });
}

int MPIX_Start_with_buffers(MPIX_Request* request, const void* sendbuf, void* recvbuf) {
  return guarded(__func__, [request] { return comm_of(request); }, [&] {
    request_of(request).start_with(sendbuf, recvbuf);
  });
}

int MPIX_Startall(int count, MPIX_Request* requests[]) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(count >= 0, MPI_ERR_COUNT, "count is negative");
    require(count == 0 || requests != nullptr, MPI_ERR_ARG, "requests is NULL");
    // Check every request first, so an error starts none of them.
    for (int i = 0; i < count; ++i) {
      const std::string argument = "requests[" + std::to_string(i) + "]";
      require(!request_of(requests[i], argument.c_str()).active(), MPI_ERR_REQUEST, argument + " is already active");
      for (int j = 0; j < i; ++j)
        require(requests[j] != requests[i], MPI_ERR_REQUEST,
                argument + " is requests[" + std::to_string(j) + "] again; a request starts once");
    }
    for (int i = 0; i < count; ++i) requests[i]->request->start();
  });
}

int MPIX_Test(MPIX_Request* request, int* flag, MPI_Status* status) {
  return guarded(__func__, [request] { return comm_of(request); }, [&] {
    require(flag != nullptr, MPI_ERR_ARG, "flag is NULL");
    *flag = request == nullptr || request_of(request).test();
    if (*flag) mpix::set_empty_status(status);
  });
}

int MPIX_Wait(MPIX_Request* request, MPI_Status* status) {
  return guarded(__func__, [request] { return comm_of(request); }, [&] {
    if (request != nullptr) request_of(request).wait();
    mpix::set_empty_status(status);
  });
}

int MPIX_Waitall(int count, MPIX_Request* requests[], MPI_Status* statuses) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(count >= 0, MPI_ERR_COUNT, "count is negative");
    require(count == 0 || requests != nullptr, MPI_ERR_ARG, "requests is NULL");
    for (int i = 0; i < count; ++i) {
      if (requests[i] != nullptr) request_of(requests[i], ("requests[" + std::to_string(i) + "]").c_str()).wait();
      mpix::set_empty_status(statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
    }
  });
}

int MPIX_Request_free(MPIX_Request** request) {
  // Only a live request may be dereferenced, even to find its communicator.
  return guarded(__func__, request != nullptr ? comm_of(*request) : MPI_COMM_NULL, [&] {
    require(request != nullptr, MPI_ERR_ARG, "request is NULL");
    if (*request == nullptr) return;
    require(!request_of(*request).active(), MPI_ERR_REQUEST,
            "request is active; complete it with MPIX_Wait or MPIX_Test before freeing it");
    Library::get().release(*request);
    *request = nullptr;
  });
}

int MPIX_Request_get_algorithm(const MPIX_Request* request, char name[MPIX_MAX_OBJECT_NAME], int* resultlen) {
  return guarded(__func__, comm_of(request), [&] {
    require(name != nullptr && resultlen != nullptr, MPI_ERR_ARG, "name or resultlen is NULL");
    copy_name(request_of(const_cast<MPIX_Request*>(request)).algorithm(), name, resultlen);
  });
}

int MPIX_Request_is_settled(const MPIX_Request* request, int* flag) {
  return guarded(__func__, comm_of(request), [&] {
    require(flag != nullptr, MPI_ERR_ARG, "flag is NULL");
    *flag = request_of(const_cast<MPIX_Request*>(request)).settled() ? 1 : 0;
  });
}

}  // extern "C"
