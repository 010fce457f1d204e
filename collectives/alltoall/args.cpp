#include "collectives/alltoall/args.hpp"

#include <mpix/mpix.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "collectives/agreed_args.hpp"
#include "collectives/alltoall/family.hpp"
#include "collectives/argument_checks.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

// One side's count, for every peer at its block's displacement.
void expand(int count, int n, const char* name, std::vector<int>& counts, std::vector<int>& displs) {
  if (count < 0) throw Error(MPI_ERR_COUNT, std::string(name) + " = " + std::to_string(count) + " is negative");
  if (n > 1 && count > INT_MAX / n)
    throw Error(MPI_ERR_COUNT, std::string(name) + " = " + std::to_string(count) + " times " + std::to_string(n) +
                                   " ranks exceeds the int displacements of the algorithms here");
  counts.assign(static_cast<std::size_t>(n), count);
  displs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) displs[static_cast<std::size_t>(r)] = r * count;
}

// Local checks and copies; throws an Error naming the bad argument.
AlltoallvArgs from_user(const AlltoallUserArgs& user, std::shared_ptr<const Comm> comm) {
  const int n = comm->size();
  AlltoallvArgs a;
  a.comm = std::move(comm);
  a.uniform = true;
  a.buffers_move = user.buffers_move;
  if (user.request_out == nullptr) throw Error(MPI_ERR_ARG, "request is NULL");
  std::vector<int> recvcounts, rdispls;
  if (user.recvbuf != MPI_IN_PLACE) expand(user.recvcount, n, "recvcount", recvcounts, rdispls);
  a.set_receive_side(user.recvbuf, user.recvtype, std::move(recvcounts), std::move(rdispls));
  a.set_send_side(user.sendbuf, user.sendtype, [&](std::vector<int>& counts, std::vector<int>& displs) {
    expand(user.sendcount, n, "sendcount", counts, displs);
  });
  return a;
}

}  // namespace

AlltoallvArgs make_alltoall_args(const AlltoallUserArgs& user, std::shared_ptr<const Comm> comm_ptr,
                                 const Requested<AlltoallvAlgorithm>& algorithm) {
  const Comm& comm = *comm_ptr;
  // Every value both ways (x and -x under MPI_MAX: the maximum and the
  // minimum over the ranks); a rank whose own arguments were rejected
  // contributes nothing but its failure.
  enum Field { in_place, send_block, recv_block, stride, fields };
  std::vector<MPI_Count> values(2 * fields + 1, std::numeric_limits<MPI_Count>::min() / 2);
  const std::size_t failed = 2 * fields;
  const auto both = [&](Field f, MPI_Count v) {
    values[2 * f] = v;
    values[2 * f + 1] = -v;
  };
  const auto uniform = [&](Field f) { return values[2 * f] == -values[2 * f + 1]; };
  const auto exchange = [&](const AlltoallvArgs* local) {
    if (local != nullptr) {
      both(in_place, local->in_place ? 1 : 0);
      both(send_block, local->send_bytes(0));
      both(recv_block, local->recv_bytes(0));
      both(stride, static_cast<MPI_Count>(local->recvcounts[0]) * local->recv_layout.extent);
    }
    values[failed] = local != nullptr ? 0 : 1;
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_COUNT, MPI_MAX,
                            comm.global()),
              "MPI_Allreduce");
  };
  const auto check = [&](const AlltoallvArgs& local) {
    if (values[failed] != 0) return;  // agreed() reports the failing rank's error on every rank
    if (!uniform(in_place))
      throw Error(MPI_ERR_BUFFER, std::string("MPI_IN_PLACE is used on ") +
                                      (local.in_place ? "this rank" : "another rank") +
                                      " but not on every rank; it must be used on all ranks or none");
    if (!uniform(send_block) || !uniform(recv_block) || values[2 * send_block] != values[2 * recv_block])
      throw Error(MPI_ERR_TRUNCATE,
                  "the ranks' blocks differ: sendcount * size of sendtype is " +
                      std::to_string(-values[2 * send_block + 1]) + ".." + std::to_string(values[2 * send_block]) +
                      " bytes, recvcount * size of recvtype " + std::to_string(-values[2 * recv_block + 1]) + ".." +
                      std::to_string(values[2 * recv_block]) + " bytes over the ranks (this rank sends " +
                      std::to_string(local.send_bytes(0)) + " and expects " + std::to_string(local.recv_bytes(0)) +
                      "); every block must be of one size");
  };
  AlltoallvArgs args =
      agree_args(alltoall_family.title, alltoall_family.variable, comm,
                 check_locally([&] { return from_user(user, comm_ptr); }, algorithm), algorithm.name, exchange, check);

  // Where my block starts in each target's receive buffer: my rank times
  // the target's block stride, the same on every rank unless receive
  // extents differ (then gathered once).
  const int n = comm.size();
  std::vector<MPI_Count> strides(static_cast<std::size_t>(n), values[2 * stride]);
  if (!uniform(stride)) {
    const MPI_Count mine = static_cast<MPI_Count>(args.recvcounts[0]) * args.recv_layout.extent;
    mpi_check(MPI_Allgather(&mine, 1, MPI_COUNT, strides.data(), 1, MPI_COUNT, comm.global()), "MPI_Allgather");
  }
  args.block_at_target.resize(static_cast<std::size_t>(n));
  for (int target = 0; target < n; ++target)
    args.block_at_target[static_cast<std::size_t>(target)] =
        static_cast<MPI_Aint>(comm.rank() * strides[static_cast<std::size_t>(target)]);
  return args;
}

}  // namespace mpix
