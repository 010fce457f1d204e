// The registry behind handle checks: membership, removal, finalize order,
// and threads adding, checking and removing at once.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "src/resource_registry.hpp"

namespace {

struct Tracked : mpix::Resource {
  explicit Tracked(std::vector<int>* destroyed = nullptr, int id = 0) : destroyed_(destroyed), id_(id) {}
  ~Tracked() override {
    if (destroyed_ != nullptr) destroyed_->push_back(id_);
  }
  std::vector<int>* destroyed_;
  int id_;
};

TEST(ResourceRegistry, ContainsExactlyWhatWasAddedAndNotRemoved) {
  mpix::ResourceRegistry registry;
  const int before = mpix::Resource::live_count();
  auto owned = std::make_unique<Tracked>();
  const Tracked* a = owned.get();
  registry.add(std::move(owned));
  Tracked foreign;
  EXPECT_EQ(registry.find(a), a);
  EXPECT_EQ(registry.find(&foreign), nullptr);
  EXPECT_EQ(registry.find(nullptr), nullptr);
  EXPECT_EQ(registry.remove(&foreign), nullptr);
  std::unique_ptr<mpix::Resource> back = registry.remove(a);
  EXPECT_EQ(back.get(), a);
  EXPECT_EQ(registry.find(a), nullptr);
  EXPECT_EQ(registry.remove(a), nullptr);  // a second free is refused
  back.reset();
  EXPECT_EQ(mpix::Resource::live_count(), before + 1);  // only `foreign` is left
}

TEST(ResourceRegistry, TakeAllHandsBackNewestFirstAndEmpties) {
  std::vector<int> destroyed;
  mpix::ResourceRegistry registry;
  for (int id = 0; id < 200; ++id) registry.add(std::make_unique<Tracked>(&destroyed, id));
  std::vector<std::unique_ptr<mpix::Resource>> all = registry.take_all();
  ASSERT_EQ(all.size(), 200u);
  for (auto& r : all) r.reset();
  for (int k = 0; k < 200; ++k) EXPECT_EQ(destroyed[k], 199 - k);
  EXPECT_TRUE(registry.take_all().empty());
}

TEST(ResourceRegistry, ThreadsAddCheckAndRemoveAtOnce) {
  mpix::ResourceRegistry registry;
  const int before = mpix::Resource::live_count();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&registry, &failures, t] {
      for (int round = 0; round < 200; ++round) {
        std::vector<const mpix::Resource*> mine;
        for (int k = 0; k < 50; ++k) {
          auto r = std::make_unique<Tracked>();
          mine.push_back(r.get());
          registry.add(std::move(r));
        }
        for (const mpix::Resource* r : mine) failures[t] += registry.find(r) == r ? 0 : 1;
        // Kept until checked: a destroyed one's address may come back for
        // another thread's new object.
        std::vector<std::unique_ptr<mpix::Resource>> removed;
        for (const mpix::Resource* r : mine) removed.push_back(registry.remove(r));
        for (std::size_t k = 0; k < mine.size(); ++k)
          failures[t] += removed[k].get() == mine[k] && registry.find(mine[k]) == nullptr ? 0 : 1;
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(mpix::Resource::live_count(), before);
}

}  // namespace
