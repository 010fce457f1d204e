// auto for the neighbourhood family: every algorithm that can run raced
// against MPI's own call (collectives/auto/race_all.hpp).
#include "collectives/auto/race_all.hpp"
#include "collectives/neighbor_alltoallv/family.hpp"

namespace mpix {

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm auto_{
    "auto",
    "a tournament timing the application's own iterations among the algorithms that can run, MPI's own call "
    "first",
    runs_any_arguments, make_operation<RaceAll<neighbor_alltoallv_family>>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
