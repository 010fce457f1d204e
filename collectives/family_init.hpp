// What every collective family does at init, written once: which algorithm
// the user asked for and who asked (the request's info, then the family's
// environment variable, then auto), the family's own agreed argument check,
// the fallback when the asked-for algorithm is unknown or refuses
// (MPIX_FALLBACK), and the agreed construction of the chosen algorithm.
// A family is its folder, one line in collectives/families.def and one
// Family value (collectives/family.hpp) that this template reads.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <mpix/mpix.h>

#include "collectives/algorithm.hpp"
#include "collectives/family.hpp"
#include "collectives/auto/settings.hpp"
#include "collectives/registry.hpp"
#include "src/agree.hpp"
#include "src/info.hpp"
#include "src/library.hpp"
#include "src/request.hpp"

namespace mpix {

// "true": MPIX_Start_with_buffers may point the request at other buffers.
inline constexpr const char* info_key_buffers_move = "mpix_buffers_move";

namespace family_detail {

template <class Row>
struct Choice {
  const Row* algorithm;
  std::string reason;
};

// The name the user asked for, and who asked: the request's info wins over
// the process-wide environment variable.
template <class F>
Choice<typename F::Row> requested_algorithm(const F& family, const Info* info, const Config& config,
                                           std::string& name) {
  const auto& rows = family.rows();
  if (auto hint = info ? info->get(family.info_key) : std::nullopt) {
    name = *hint;
    return {find_row(rows, name), std::string("info key ") + family.info_key};
  }
  if (!family.forced(config).empty()) {
    name = family.forced(config);
    return {find_row(rows, name), family.variable};
  }
  name = default_algorithm;
  return {find_row(rows, name), "library default"};
}

// What the user asked for, or, as MPIX_FALLBACK says, the default. Local:
// the name and whether any rank refuses it were agreed with the arguments.
template <class F>
Choice<typename F::Row> choose_algorithm(const F& family, const typename F::Args& args, const std::string& name,
                                         Choice<typename F::Row> choice, const Config& config) {
  std::optional<Error> why;
  if (choice.algorithm == nullptr)
    why.emplace(error_code(MPIX_ERRKIND_ALGORITHM), std::string("unknown ") + family.title + " algorithm '" + name +
                                                        "' (from " + choice.reason +
                                                        "); registered: " + row_names(family.rows()));
  else if (args.algorithm_refused)
    why.emplace(error_code(MPIX_ERRKIND_ALGORITHM),
                "algorithm '" + name + "' cannot run these arguments " + *args.algorithm_refused);
  if (!why) return choice;
  const FallbackPolicy policy = config.section<AutoConfig>().fallback;
  if (policy == FallbackPolicy::error) throw *why;
  const typename F::Row* fallback = find_row(family.rows(), default_algorithm);
  if (policy == FallbackPolicy::warn && args.comm->rank() == 0)
    std::fprintf(stderr, "mpix-rma warning: %s; using %s (MPIX_FALLBACK=warn)\n", why->what(), fallback->name);
  return {fallback, std::string("fallback: ") + why->what()};
}

}  // namespace family_detail

// Collective over comm: every step agreed on all ranks, so a bad argument,
// a refusing algorithm or a failing set-up is the same error everywhere.
template <class F>
std::unique_ptr<Request> init_request(const F& family, const typename F::UserArgs& user,
                                      std::shared_ptr<const Comm> comm, const Info* info) {
  using namespace family_detail;
  const Config& config = comm->config();
  std::string name;
  const Choice<typename F::Row> requested = requested_algorithm(family, info, config, name);
  typename F::UserArgs asked = user;
  // Any other value is ignored, as MPI ignores info values it cannot use.
  if (auto moves = info ? info->get(info_key_buffers_move) : std::nullopt) asked.buffers_move = *moves == "true";
  typename F::Args args = family.make_args(asked, comm, {name, requested.algorithm});
  args.auto_hints = AutoHints::of(info);
  const Choice<typename F::Row> choice = choose_algorithm(family, args, name, requested, config);

  std::unique_ptr<PersistentOperation> operation;
  agreed(comm->global(), [&] { operation = choice.algorithm->create(args); });
  if (config.verbose >= 1 && comm->rank() == 0)
    std::fprintf(stderr, "mpix-rma: %s request on %d ranks (%d nodes)%s: %s (%s)\n", family.title, comm->size(),
                 comm->num_nodes(), family.shape(args).c_str(), choice.algorithm->name, choice.reason.c_str());
  return std::make_unique<Request>(std::move(comm), choice.algorithm->name, std::move(operation), args.buffers_move);
}

}  // namespace mpix
