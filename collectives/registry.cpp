#include "collectives/registry.hpp"

namespace mpix {

namespace algorithms {
#define MPIX_ALLTOALLV_ALGORITHM(id, capabilities) extern const AlltoallvAlgorithm id;
#include "collectives/alltoallv/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
}  // namespace algorithms

namespace {
AlltoallvAlgorithm registered(const AlltoallvAlgorithm& row, unsigned capabilities) {
  AlltoallvAlgorithm copy = row;
  copy.capabilities = capabilities;
  return copy;
}
}  // namespace

const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms() {
  // The rows as their files define them, with the capabilities of their
  // registry.def line.
  static const std::vector<AlltoallvAlgorithm> rows = [] {
    using namespace capability;
    return std::vector<AlltoallvAlgorithm>{
#define MPIX_ALLTOALLV_ALGORITHM(id, capabilities) registered(algorithms::id, capabilities),
#include "collectives/alltoallv/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
    };
  }();
  static const std::vector<const AlltoallvAlgorithm*> pointers = [] {
    std::vector<const AlltoallvAlgorithm*> out;
    for (const AlltoallvAlgorithm& row : rows) out.push_back(&row);
    return out;
  }();
  return pointers;
}

const AlltoallvAlgorithm* find_alltoallv_algorithm(std::string_view name) {
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms()) {
    if (name == row->name) return row;
  }
  return nullptr;
}

std::string alltoallv_algorithm_names() {
  std::string names;
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms()) {
    if (!names.empty()) names += ", ";
    names += row->name;
  }
  return names;
}

std::string capability_list(unsigned capabilities) {
  std::string names;
  for (const CapabilityName& c : capability_names) {
    if ((capabilities & c.bit) == 0) continue;
    if (!names.empty()) names += ",";
    names += c.name;
  }
  return names;
}

std::optional<std::string> refusal(const AlltoallvAlgorithm& row, const AlltoallvArgs& args) {
  if (args.buffers_move && !row.buffers_may_move(args.comm->num_nodes())) {
    if (row.has(capability::mpi_persistent))
      return std::string("MPI's persistent call binds the buffers, and mpix_buffers_move says they move");
    return std::string("its window is made over recvbuf's address, and mpix_buffers_move says the buffers move");
  }
  if (row.has(capability::contiguous_types)) {
    if (!args.send_layout.contiguous)
      return std::string("sendtype is not contiguous (this algorithm moves raw bytes)");
    if (!args.recv_layout.contiguous)
      return std::string("recvtype is not contiguous (this algorithm moves raw bytes)");
  }
  return row.unsupported != nullptr ? row.unsupported(args) : std::nullopt;
}

}  // namespace mpix
