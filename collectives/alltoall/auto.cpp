// auto for Alltoall: every algorithm that can run raced against MPI's own
// MPI_Alltoall (collectives/auto/race_all.hpp).
#include "collectives/alltoall/family.hpp"
#include "collectives/auto/race_all.hpp"

namespace mpix {

namespace alltoall_rows {
extern const AlltoallvAlgorithm auto_{
    "auto",
    "a tournament timing the application's own iterations among the algorithms that can run, MPI_Alltoall "
    "first",
    runs_any_arguments, make_operation<RaceAll<alltoall_family>>};
}  // namespace alltoall_rows

}  // namespace mpix
