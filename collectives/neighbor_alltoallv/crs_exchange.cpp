#include "collectives/neighbor_alltoallv/crs_exchange.hpp"

#include <atomic>
#include <utility>

#include "collectives/family_init.hpp"
#include "collectives/neighbor_alltoallv/family.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

std::atomic<std::uint64_t> reused{0};

unsigned char nowhere;  // an empty receive buffer's address

// A pointer MPI may read no element through: an empty array's.
template <class T>
const T* array(const std::vector<T>& v) {
  static const T none{};
  return v.empty() ? &none : v.data();
}

}  // namespace

std::uint64_t crs_exchanges_reused() { return reused.load(std::memory_order_relaxed); }

bool CrsExchange::Pattern::operator==(const Pattern& other) const {
  return dest == other.dest && sendcounts == other.sendcounts && sdispls == other.sdispls &&
         sendtype == other.sendtype && recvtype == other.recvtype;
}

CrsExchange::Kept::~Kept() {
  request.reset();  // it uses graph_comm's components
  if (graph_comm) graph_comm->close_components();
  graph_comm.reset();  // before the MPI communicator it stands for
}

CrsExchange::~CrsExchange() = default;

SparseReceived alltoallv_crs(const Comm& comm, int send_nnz, const int dest[], const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype, const void* sendvals,
                             MPI_Datatype recvtype, const Info* info) {
  return comm.component<CrsExchange>()->exchange(comm, send_nnz, dest, sendcounts, sdispls, sendtype, sendvals,
                                                 recvtype, info);
}

SparseReceived CrsExchange::exchange(const Comm& comm, int send_nnz, const int dest[], const int sendcounts[],
                                     const int sdispls[], MPI_Datatype sendtype, const void* sendvals,
                                     MPI_Datatype recvtype, const Info* info) {
  const std::vector<SparseMessage> messages =
      checked_crs_messages(comm, send_nnz, dest, sendcounts, sdispls, sendtype, sendvals, recvtype);
  // Checked: the arrays hold send_nnz entries.
  Pattern pattern{{dest, dest + send_nnz},
                  {sendcounts, sendcounts + send_nnz},
                  {sdispls, sdispls + send_nnz},
                  sendtype,
                  recvtype};
  const auto asked = info ? info->get(info_key_crs_reuse) : std::nullopt;
  const int reuse = asked && *asked == "true";
  const int same = reuse && kept_ && kept_->pattern == pattern;
  int local[3] = {reuse, -reuse, same}, all[3] = {};
  mpi_check(MPI_Allreduce(local, all, 3, MPI_INT, MPI_MIN, comm.global()), "MPI_Allreduce");
  if (all[0] != -all[1])
    throw Error(MPI_ERR_INFO_VALUE, std::string("info key ") + info_key_crs_reuse +
                                        " is \"true\" on some ranks and not on others; it must be alike on every rank");
  if (all[2] == 1) {
    SparseReceived out;
    out.sources = kept_->sources;
    out.counts = kept_->recvcounts;
    out.displs = kept_->rdispls;
    out.data.resize(kept_->recv_bytes);
    kept_->request->start_with(sendvals, out.data.empty() ? &nowhere : out.data.data());
    kept_->request->wait();
    reused.fetch_add(1, std::memory_order_relaxed);
    return out;
  }
  kept_.reset();  // on every rank: the pattern changed on some rank, or re-use is off
  SparseReceived found = sparse_exchange(comm.global(), messages, sendtype, recvtype);
  if (reuse) keep(comm, std::move(pattern), found, sendvals);
  return found;
}

void CrsExchange::keep(const Comm& comm, Pattern pattern, SparseReceived& found, const void* sendvals) {
  auto kept = std::make_unique<Kept>();
  kept->pattern = std::move(pattern);
  kept->sources = found.sources;
  kept->recvcounts = found.counts;
  kept->rdispls = found.displs;
  kept->recv_bytes = found.data.size();
  const Pattern& p = kept->pattern;
  // The graph's out-edges: the destinations that receive something (an
  // MPI_PROC_NULL block goes nowhere), in the caller's order.
  std::vector<int> dest, sendcounts, sdispls;
  for (std::size_t i = 0; i < p.dest.size(); ++i)
    if (p.dest[i] != MPI_PROC_NULL) {
      dest.push_back(p.dest[i]);
      sendcounts.push_back(p.sendcounts[i]);
      sdispls.push_back(p.sdispls[i]);
    }
  agreed(comm.global(), [&] {
    mpi_check(MPI_Dist_graph_create_adjacent(comm.global(), static_cast<int>(kept->sources.size()),
                                             array(kept->sources), MPI_UNWEIGHTED, static_cast<int>(dest.size()),
                                             array(dest), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, kept->graph.out()),
              "MPI_Dist_graph_create_adjacent");
  });
  kept->graph_comm = std::make_shared<const Comm>(kept->graph.get(), comm.config());
  Info moves;
  moves.set(info_key_buffers_move, "true");
  void* recvbuf = found.data.empty() ? &nowhere : found.data.data();  // bound only until the first start
  kept->request = init_request(neighbor_alltoallv_family,
                               {sendvals, array(sendcounts), array(sdispls), p.sendtype, recvbuf,
                                array(kept->recvcounts), array(kept->rdispls), p.recvtype, &kept_},
                               kept->graph_comm, &moves);
  kept_ = std::move(kept);
}

}  // namespace mpix
