#include "src/resource_registry.hpp"

#include <algorithm>
#include <cstdint>

namespace mpix {

ResourceRegistry::Stripe& ResourceRegistry::stripe_of(const void* address) const {
  // Heap objects are at least 16-byte aligned: the low bits carry nothing.
  const auto bits = reinterpret_cast<std::uintptr_t>(address);
  return stripes_[(bits >> 4 ^ bits >> 10) % stripe_count];
}

void ResourceRegistry::add(std::unique_ptr<Resource> r) {
  const void* key = dynamic_cast<const void*>(r.get());
  Stripe& s = stripe_of(key);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.members.emplace(key, std::move(r));
}

std::unique_ptr<Resource> ResourceRegistry::remove(const void* address) {
  Stripe& s = stripe_of(address);
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.members.find(address);
  if (it == s.members.end()) return nullptr;
  // Counted before the object can die: a check that saw the old count
  // looks the handle up again.
  removals_.fetch_add(1, std::memory_order_acq_rel);
  std::unique_ptr<Resource> removed = std::move(it->second);
  s.members.erase(it);
  return removed;
}

const Resource* ResourceRegistry::find(const void* address) const {
  Stripe& s = stripe_of(address);
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.members.find(address);
  return it == s.members.end() ? nullptr : it->second.get();
}

std::vector<std::unique_ptr<Resource>> ResourceRegistry::take_all() {
  std::vector<std::unique_ptr<Resource>> all;
  removals_.fetch_add(1, std::memory_order_acq_rel);
  for (Stripe& s : stripes_) {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (auto& member : s.members) all.push_back(std::move(member.second));
    s.members.clear();
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a->serial() > b->serial(); });
  return all;
}

}  // namespace mpix
