// The graphs the neighbourhood suites run on: every rank builds the same
// global edge list from a seed (a test may know the whole graph; the library
// is never told it), then its own view of it, as MPI_Dist_graph_neighbors
// will list it.
#pragma once

#include <mpi.h>

#include <random>
#include <string>
#include <vector>

namespace mpix_test {

struct Edge {
  int from, to, count;  // count: elements the edge carries
};

struct GraphCase {
  const char* name;
  // The edges of a graph on p ranks, in the order that pairs duplicates:
  // the k-th edge from a to b is a's k-th destination b and b's k-th source a.
  std::vector<Edge> (*edges)(int p);
};

// Random, asymmetric: each rank sends to a few random ranks (repeats and
// itself included), some ranks to none, with counts from 0 up.
inline std::vector<Edge> random_edges(int p, unsigned seed, int max_count) {
  std::mt19937 random(seed);
  std::vector<Edge> edges;
  for (int from = 0; from < p; ++from) {
    const int degree = static_cast<int>(random() % 5);  // 0..4: some ranks send nothing
    for (int k = 0; k < degree; ++k)
      edges.push_back({from, static_cast<int>(random() % p), static_cast<int>(random() % (max_count + 1))});
  }
  return edges;
}

inline const std::vector<GraphCase>& graph_cases() {
  static const std::vector<GraphCase> cases = {
      // rank +- 1: at 2 ranks, two edges to the same peer.
      {"ring", [](int p) {
         std::vector<Edge> e;
         for (int r = 0; r < p; ++r) {
           e.push_back({r, (r + 1) % p, 64 + r});
           e.push_back({r, (r - 1 + p) % p, 32 + r});
         }
         return e;
       }},
      // rank +- 1 with about 4 KB each way, a little more from higher
      // ranks: even pairs of large blocks, which the node channel paces in
      // lockstep.
      {"even_halo", [](int p) {
         std::vector<Edge> e;
         for (int r = 0; r < p; ++r) {
           e.push_back({r, (r + 1) % p, 1000 + 5 * r});
           e.push_back({r, (r - 1 + p) % p, 1000 + 5 * r});
         }
         return e;
       }},
      {"random_small", [](int p) { return random_edges(p, 7u, 9); }},
      {"random_large", [](int p) { return random_edges(p, 11u, 5000); }},
      {"self_loops_and_duplicates", [](int p) {
         std::vector<Edge> e;
         for (int r = 0; r < p; ++r) {
           e.push_back({r, r, 3});
           e.push_back({r, (r + 1) % p, 5});
           e.push_back({r, (r + 1) % p, 0});
           e.push_back({r, (r + 1) % p, 7});
           e.push_back({r, r, 1});
         }
         return e;
       }},
      // Only rank 0 sends, to everyone: one rank has out-edges only, the
      // others in-edges only.
      {"star_from_0", [](int p) {
         std::vector<Edge> e;
         for (int r = 1; r < p; ++r) e.push_back({0, r, 100 * r});
         return e;
       }},
      {"empty", [](int) { return std::vector<Edge>{}; }},
      // Blocks from a few bytes to a few hundred kilobytes between the same
      // ranks, duplicates of different sizes among them: a row that moves
      // edges of different sizes different ways must still pair them in
      // edge order.
      {"mixed_sizes", [](int p) {
         std::vector<Edge> e;
         for (int r = 0; r < p; ++r) {
           e.push_back({r, (r + 1) % p, 70000});
           e.push_back({r, (r + 1) % p, 3});
           e.push_back({r, (r - 1 + p) % p, 9000});
           e.push_back({r, r, 100});
           e.push_back({r, (r + 1) % p, 90000});
         }
         return e;
       }},
  };
  return cases;
}

// One rank's side of a graph: its edges in the order MPI lists them for an
// adjacent graph (the edge list's order), with contiguous displacements.
struct RankView {
  std::vector<int> sources, recvcounts, rdispls;
  std::vector<int> destinations, sendcounts, sdispls;
  std::vector<int> in_edge, out_edge;  // the global edge index of each
  int recv_elements = 0, send_elements = 0;
};

inline RankView view_of(const std::vector<Edge>& edges, int rank) {
  RankView v;
  for (int i = 0; i < static_cast<int>(edges.size()); ++i) {
    const Edge& e = edges[static_cast<std::size_t>(i)];
    if (e.from == rank) {
      v.destinations.push_back(e.to);
      v.sendcounts.push_back(e.count);
      v.sdispls.push_back(v.send_elements);
      v.out_edge.push_back(i);
      v.send_elements += e.count + 1;  // a gap of one element that nothing may write
    }
    if (e.to == rank) {
      v.sources.push_back(e.from);
      v.recvcounts.push_back(e.count);
      v.rdispls.push_back(v.recv_elements);
      v.in_edge.push_back(i);
      v.recv_elements += e.count + 1;
    }
  }
  return v;
}

// The adjacent distributed-graph communicator of view over MPI_COMM_WORLD.
inline MPI_Comm adjacent_graph(const RankView& v) {
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(v.sources.size()), v.sources.data(),
                                 MPI_UNWEIGHTED, static_cast<int>(v.destinations.size()), v.destinations.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  return graph;
}

}  // namespace mpix_test
