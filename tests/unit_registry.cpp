// The algorithm registry, without MPI.
#include <gtest/gtest.h>

#include <set>

#include "collectives/alltoallv_init.hpp"
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

TEST(Registry, BaselinesAndDefaultAreRegistered) {
  EXPECT_NE(mpix::find_alltoallv_algorithm("native"), nullptr);
  EXPECT_NE(mpix::find_alltoallv_algorithm("native_persistent"), nullptr);
  EXPECT_NE(mpix::find_alltoallv_algorithm(mpix::default_alltoallv_algorithm), nullptr);
}

TEST(Registry, NameListNamesEveryAlgorithm) {
  const std::string list = mpix::alltoallv_algorithm_names();
  for (const auto* a : mpix::alltoallv_algorithms()) EXPECT_NE(list.find(a->name), std::string::npos);
}
