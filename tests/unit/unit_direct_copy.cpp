// CMA copies of many iovec pairs, without MPI: the kernel takes at most
// IOV_MAX pairs a call, and a transfer (a pair's edges one way) may hold
// more.
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "node/direct_copy.hpp"

TEST(DirectCopy, CopiesMorePairsThanOneCallTakes) {
  std::string why;
  if (!mpix::cma_reachable(getpid(), mpix::cma_probe_address(), why))
    GTEST_SKIP() << "CMA refused here: " << why;
  const int pairs = IOV_MAX + IOV_MAX / 2 + 3;
  std::vector<unsigned char> from(static_cast<std::size_t>(pairs) * 3), to(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<unsigned char>(i * 31 + 1);
  // Every pair moves 2 of each 3 bytes, so the pairs cannot merge into one.
  std::vector<iovec> local, remote;
  for (int k = 0; k < pairs; ++k) {
    local.push_back({to.data() + 3 * k, 2});
    remote.push_back({from.data() + 3 * k, 2});
  }
  mpix::cma_copy_vectors(getpid(), local.data(), remote.data(), pairs, false);
  for (int k = 0; k < pairs; ++k) {
    ASSERT_EQ(to[3 * k], from[3 * k]) << "pair " << k;
    ASSERT_EQ(to[3 * k + 1], from[3 * k + 1]) << "pair " << k;
    ASSERT_EQ(to[3 * k + 2], 0) << "pair " << k;
  }
}
