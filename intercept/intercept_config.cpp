#include "intercept/intercept_config.hpp"

namespace mpix {

const std::vector<VariableSpec>& intercept_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_INTERCEPT", "enum", "on", "on|off",
     "Drop-in (libmpixrma_intercept.so): on serves MPI_Alltoallv and MPI_Neighbor_alltoallv calls that "
     "repeat from a persistent request; off passes every call to MPI's own (PMPI_).",
     [](std::string_view v, Config& c) { c.section<InterceptConfig>().enabled = parse_on_off(v); }},
    {"MPIX_INTERCEPT_REPEATS", "int", "3", "1..16",
     "Drop-in: how many of a communicator's recent calls must have had the same arguments on every rank "
     "before that exchange is served.",
     [](std::string_view v, Config& c) { c.section<InterceptConfig>().repeats = parse_int(v, 1, 16); }},
    {"MPIX_INTERCEPT_ENTRIES", "int", "4", "1..16",
     "Drop-in: exchanges kept per communicator and collective (the least recently served goes first).",
     [](std::string_view v, Config& c) { c.section<InterceptConfig>().entries = parse_int(v, 1, 16); }},
    {"MPIX_INTERCEPT_MIN_BYTES", "int", "8192", "0..2147483647",
     "Drop-in: the smallest exchange served, as the largest block any rank sends or receives; smaller "
     "ones pass straight to MPI's own call (without agreement, re-checked now and then).",
     [](std::string_view v, Config& c) { c.section<InterceptConfig>().min_bytes = parse_int(v, 0, 2147483647); }},
    {"MPIX_INTERCEPT_AGREEMENT", "enum", "auto", "auto|mpi|channel",
     "Drop-in: how the ranks agree before each call they may serve: mpi is an MPI_Allreduce; channel sends "
     "each rank's few integers to the others through the node channel, where the communicator is one node "
     "(otherwise, or where the machine refuses the channel, mpi, with the reason under MPIX_VERBOSE); auto "
     "times both at each admission and keeps the faster.",
     [](std::string_view v, Config& c) {
       c.section<InterceptConfig>().agreement = parse_choice<AgreementPath>(
           v, {{"auto", AgreementPath::automatic}, {"mpi", AgreementPath::mpi}, {"channel", AgreementPath::channel}});
     }},
    {"MPIX_INTERCEPT_ADMISSION", "enum", "rent", "rent|repeats",
     "Drop-in: when a repeating exchange is served: rent, once what its calls are expected to cost MPI from "
     "now (as many as it has run, or the rest of the communicator's typical pattern life) would repay a "
     "search for a faster algorithm (priced as the last search measured on the communicator, and its gain "
     "expected as that search's where its blocks were within four times these), so that short or cheap "
     "exchanges never pay for one; repeats, as soon as it has repeated MPIX_INTERCEPT_REPEATS times, for "
     "programs known to run each exchange many times.",
     [](std::string_view v, Config& c) {
       c.section<InterceptConfig>().admission =
           parse_choice<AdmissionPolicy>(v, {{"rent", AdmissionPolicy::rent}, {"repeats", AdmissionPolicy::repeats}});
     }},
    {"MPIX_INTERCEPT_PERSISTENT", "enum", "progress", "progress|mpi|library",
     "Drop-in: MPI-4's persistent collectives (MPI_Alltoallv_init, MPI_Alltoall_init, "
     "MPI_Neighbor_alltoallv_init). MPI makes MPI_Start local and a rank's completion need only the other "
     "ranks' MPI_Start. progress serves them with the library's algorithms that keep that rule (capability "
     "mpi_progress), where the largest block reaches MPIX_INTERCEPT_MIN_BYTES or the communicator is one "
     "node, and with the MPI's own otherwise; mpi passes them to the MPI's own; library serves them with auto, whose MPI_Start and "
     "completion may wait for the other ranks' (as a blocking collective does): only for programs in which "
     "no rank reaches its MPI_Start, or its completion call, only after another rank has passed its own.",
     [](std::string_view v, Config& c) {
       c.section<InterceptConfig>().persistent = parse_choice<PersistentPolicy>(
           v, {{"progress", PersistentPolicy::progress}, {"mpi", PersistentPolicy::mpi},
               {"library", PersistentPolicy::library}});
     }},
    {"MPIX_INTERCEPT_NONBLOCKING", "enum", "on", "on|off",
     "Drop-in: on serves MPI_Ialltoallv, MPI_Ialltoall and MPI_Ineighbor_alltoallv (on a distributed graph) on "
     "communicators whose ranks share one node, every call, each rank copying its blocks with the others' as "
     "they arrive (no agreement at the call, as MPI makes it local); the choice is made once per communicator, "
     "collectively, where it is made (MPI_Init for MPI_COMM_WORLD, MPI_Comm_dup, MPI_Comm_dup_with_info, "
     "MPI_Comm_split, MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group, MPI_Intercomm_merge, "
     "MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create, MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create). "
     "off passes them to the MPI's own.",
     [](std::string_view v, Config& c) { c.section<InterceptConfig>().nonblocking = parse_on_off(v); }},
    {"MPIX_INTERCEPT_BLOCKING", "enum", "claimed", "claimed|agreed",
     "Drop-in: what runs the MPI_Alltoallv, MPI_Alltoall and MPI_Neighbor_alltoallv calls that the agreed "
     "path (repeated exchanges, agreed, served from the library's persistent requests) passes on, on a "
     "communicator set up for the nonblocking exchanges (MPIX_INTERCEPT_NONBLOCKING): claimed runs them as "
     "the nonblocking ones run, with no agreement, and leaves them every block up to the 16 KiB they stage "
     "(but patterns whose search found the MPI's own call fastest, which go to the MPI's own, a uniform "
     "MPI_Alltoallv's excepted); agreed passes them to the MPI's own, as on every other communicator.",
     [](std::string_view v, Config& c) {
       c.section<InterceptConfig>().blocking =
           parse_choice<BlockingPath>(v, {{"claimed", BlockingPath::claimed}, {"agreed", BlockingPath::agreed}});
     }},
  };
  return rows;
}

}  // namespace mpix
