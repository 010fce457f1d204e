// The agreement every family's make_args makes over its arguments
// (collectives/<family>/args.cpp), written once. After the local checks
// (check_locally, collectives/family.hpp), collectively and on every rank
// alike, whatever its own checks found:
//   1. one MPI_Allreduce: the requested row's name hash both ways (equal
//      maxima: every rank asks for the same row) and the lowest rank whose
//      arguments the row refuses;
//   2. the family's own exchange of what each rank's arguments say to its
//      peers (an MPI_Alltoall of per-peer facts, an MPI_Allreduce of
//      uniform values, a neighbourhood exchange along the graph's edges);
//   3. agreed(): every rank asked for the same row, then this rank's own
//      error, then the family's checks of what the exchange brought, so
//      that every rank raises the same error (src/agree.hpp);
//   4. the refusing rank's reason, broadcast from it, as the arguments'
//      algorithm_refused (the family's init reports it, or auto passes the
//      row by).
// Why one skeleton: the order is what keeps the ranks in step. A rank whose
// own arguments failed still makes every collective call the others make,
// and no rank leaves before it knows every other rank's outcome.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include <string>
#include <utility>

#include "collectives/argument_checks.hpp"
#include "collectives/family.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

namespace mpix {

// family: the family in messages ("Alltoallv"); variable: where the
// process asks for a row (both from the family's constant). exchange(args):
// step 2, called on every rank, with nullptr where this rank's own
// arguments failed; check(args): step 3's family checks, on a rank whose
// own arguments passed.
template <class Args, class Exchange, class Check>
Args agree_args(const char* family, const char* variable, const Comm& comm, LocalArgs<Args> local,
                const std::string& algorithm, Exchange&& exchange, Check&& check) {
  const MPI_Count my_algorithm = name_hash(algorithm);
  MPI_Count votes[3] = {my_algorithm, -my_algorithm, local.refused ? comm.size() - comm.rank() : 0};
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_COUNT, MPI_MAX, comm.global()), "MPI_Allreduce");
  exchange(local.args ? &*local.args : nullptr);
  agreed(comm.global(), [&] {
    if (votes[0] != my_algorithm || votes[1] != -my_algorithm)
      throw Error(error_code(MPIX_ERRKIND_ALGORITHM),
                  std::string("ranks ask for different ") + family + " algorithms (this rank: '" + algorithm +
                      "', another rank: another); the info key and " + variable + " must agree on all ranks");
    if (local.error) throw *local.error;
    check(*local.args);
  });
  if (votes[2] > 0) {
    const int refusing = comm.size() - static_cast<int>(votes[2]);
    local.args->algorithm_refused =
        "on rank " + std::to_string(refusing) + ": " + broadcast_text(local.refused, refusing, comm.global());
  }
  return std::move(*local.args);
}

}  // namespace mpix
