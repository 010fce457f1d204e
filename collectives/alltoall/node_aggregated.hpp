// How many messages this process's node-aggregated exchanges sent to ranks
// on other nodes (collectives/alltoall/node_aggregated.cpp), since it began:
// what aggregation is for, counted where it happens, for tests and
// MPIX_VERBOSE.
#pragma once

#include <cstdint>

namespace mpix {

std::uint64_t node_aggregated_off_node_messages();

}  // namespace mpix
