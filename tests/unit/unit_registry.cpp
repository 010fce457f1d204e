// The algorithm registry, without MPI.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <mpix/mpix.h>

#include "collectives/alltoallv/family.hpp"
#include "collectives/registry.hpp"

TEST(Registry, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  ASSERT_FALSE(mpix::alltoallv_algorithms().empty());
  for (const auto* a : mpix::alltoallv_algorithms()) {
    EXPECT_TRUE(names.insert(a->name).second) << a->name;
    EXPECT_LT(std::string(a->name).size(), 64u) << a->name;
    EXPECT_GT(std::string(a->description).size(), 10u) << a->name;
    EXPECT_NE(a->unsupported, nullptr) << a->name;
    EXPECT_NE(a->create, nullptr) << a->name;
  }
}

TEST(Registry, FindsEveryRegisteredNameAndNothingElse) {
  for (const auto* a : mpix::alltoallv_algorithms()) EXPECT_EQ(mpix::find_alltoallv_algorithm(a->name), a);
  EXPECT_EQ(mpix::find_alltoallv_algorithm("no_such_algorithm"), nullptr);
  EXPECT_EQ(mpix::find_alltoallv_algorithm(""), nullptr);
  EXPECT_EQ(mpix::find_alltoallv_algorithm("Native"), nullptr);
}

// auto needs MPI's own call to measure against, and the default must exist
// and be the selector.
TEST(Registry, OneBaselineAndTheDefaultSelects) {
  int baselines = 0;
  for (const auto* a : mpix::alltoallv_algorithms()) baselines += a->has(mpix::capability::mpi_baseline) ? 1 : 0;
  EXPECT_EQ(baselines, 1);
  const mpix::AlltoallvAlgorithm* fallback = mpix::find_alltoallv_algorithm(mpix::default_algorithm);
  ASSERT_NE(fallback, nullptr);
  EXPECT_TRUE(fallback->has(mpix::capability::selects));
}

// Every capability bit the registry uses has a name, and the buffers rule
// follows from them.
TEST(Registry, CapabilitiesAreNamedAndDecideWhetherBuffersMayMove) {
  unsigned named = 0;
  for (const mpix::CapabilityName& c : mpix::capability_names) named |= c.bit;
  for (const auto* a : mpix::alltoallv_algorithms()) {
    EXPECT_EQ(a->capabilities & ~named, 0u) << a->name;
    const bool binds = a->has(mpix::capability::window) || a->has(mpix::capability::mpi_persistent);
    EXPECT_EQ(a->buffers_may_move(1), !binds) << a->name;
    EXPECT_EQ(a->buffers_may_move(2), !binds && !a->has(mpix::capability::window_off_node)) << a->name;
  }
}

// Each family's README table lists its registry: every row, in its order,
// with its capabilities, and nothing else. The table follows the line
// `<!-- algorithms: <family> -->`, one per row of collectives/families.def,
// and the family's rows are read through its public listing.
struct ListedFamily {
  const char* folder;
  int (*count)(int*);
  int (*describe)(int, const char**, const char**, int*);
};
const ListedFamily listed_families[] = {
#define MPIX_FAMILY(folder, Name, rows_namespace) {#folder, MPIX_##Name##_algorithm_count, MPIX_##Name##_algorithm},
#include "collectives/families.def"
#undef MPIX_FAMILY
};

TEST(Registry, ReadmeTablesAreTheRegistry) {
  std::ifstream readme(MPIX_SOURCE_DIR "/README.md");
  ASSERT_TRUE(readme.good());
  std::stringstream text;
  text << readme.rdbuf();
  const std::string all = text.str();
  for (const ListedFamily& family : listed_families) {
    const std::string marker = std::string("\n<!-- algorithms: ") + family.folder + " -->\n";
    const std::size_t at = all.find(marker);
    ASSERT_NE(at, std::string::npos) << family.folder << ": no README table";
    std::istringstream lines(all.substr(at + marker.size()));
    const std::regex row("^\\| `([a-z0-9_]+)` \\| ([a-z_,]*|\\(none\\)) \\| .*");
    std::vector<std::pair<std::string, std::string>> table;
    for (std::string line; std::getline(lines, line) && line.rfind('|', 0) == 0;) {
      std::smatch m;
      if (std::regex_match(line, m, row)) table.emplace_back(m[1], m[2] == "(none)" ? "" : std::string(m[2]));
    }
    std::vector<std::pair<std::string, std::string>> registry;
    int count = 0;
    ASSERT_EQ(family.count(&count), MPI_SUCCESS);
    for (int i = 0; i < count; ++i) {
      const char* name = nullptr;
      int capabilities = 0;
      ASSERT_EQ(family.describe(i, &name, nullptr, &capabilities), MPI_SUCCESS);
      registry.emplace_back(name, mpix::capability_list(static_cast<unsigned>(capabilities)));
    }
    EXPECT_EQ(table, registry) << family.folder;
  }
}

TEST(Registry, NameListNamesEveryAlgorithm) {
  const std::string list = mpix::alltoallv_algorithm_names();
  for (const auto* a : mpix::alltoallv_algorithms()) EXPECT_NE(list.find(a->name), std::string::npos);
}
