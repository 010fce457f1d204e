// The MPIX_* environment variables: one typed table (config.cpp) parsed once
// into an immutable Config. Nothing else in the library reads the environment.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mpix {

enum class FallbackPolicy { error, warn, silent };
enum class NodePath { automatic, shm, cma, mpi };
// How far the library relies on ptrace permission between node peers (CMA,
// pidfd_getfd): widen grants it to same-user processes where Yama asks for
// that, use takes it only where the kernel already grants it, off never
// makes a call that needs it.
enum class PtracePeers { widen, use, off };

struct Config {
  std::string alltoallv_algorithm;  // empty: the library's default
  FallbackPolicy fallback = FallbackPolicy::warn;
  int node_size = 0;  // 0: real shared-memory nodes
  int verbose = 0;
  NodePath node_path = NodePath::automatic;
  long cma_min_bytes = 131072;
  int win_thread_slots = 4;
  std::vector<std::string> alltoallv_exclude;  // registry names the selector never chooses
  std::string tuning_file;                      // empty: the built-in parameters
  long expected_iterations = 1000;
  int auto_periods = 8;      // auto's tournament: timed periods per candidate; 0: no tournament
  double auto_within = 2.0;  // auto's tournament: candidates predicted within this factor of the best
  int auto_settle = 100;     // auto's tournament: iterations it may take in all
  long channel_chunk_bytes = 16384;        // node channel: payload of one ring slot
  long channel_staging_bytes = 1L << 20;   // node channel: inbound staging memory per rank
  long channel_single_copy_bytes = 4096;   // node channel: mapped send blocks from this size up: one copy; 0: never
  long channel_cma_bytes = 65536;          // channel_cma: heap send blocks from this size up: one CMA copy; 0: never
  int channel_spin_polls = -1;             // node channel: polls before a waiting rank yields; -1: by the node's cores
  PtracePeers ptrace_peers = PtracePeers::widen;
  bool intercept = true;                   // drop-in: serve repeated MPI_Alltoallv calls
  int intercept_repeats = 3;               // drop-in: calls of a pattern before it is served
  int intercept_entries = 4;               // drop-in: patterns kept per communicator
  long intercept_min_bytes = 8192;         // drop-in: smallest largest-block served
};

// Parsing failures name the variable, the value and what is accepted.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether ranks of one communicator may set a variable differently. Most
// change what the ranks do together (which algorithm, how many windows,
// the node layout), so MPIX_Comm_init agrees on them; the others only
// change what one rank does on its own side.
enum class Scope { every_rank_alike, per_rank };

struct VariableSpec {
  const char* name;
  const char* type;
  const char* default_value;
  const char* accepted;
  const char* description;
  // Parses value into its field of out; throws std::invalid_argument.
  void (*apply)(std::string_view value, Config& out);
  Scope scope = Scope::every_rank_alike;
};

const std::vector<VariableSpec>& variable_table();

struct VariableSetting {
  const VariableSpec* spec;
  std::string value;
  bool from_environment;
};

class Configuration {
 public:
  // environment: every MPIX_* variable that is set, name -> value.
  static Configuration parse(const std::map<std::string, std::string>& environment);
  static Configuration from_process_environment();

  const Config& values() const { return values_; }
  const std::vector<VariableSetting>& settings() const { return settings_; }
  // MPIX_* names that are set but not in the table: most likely typos.
  const std::vector<std::string>& unknown_variables() const { return unknown_; }

 private:
  Config values_;
  std::vector<VariableSetting> settings_;
  std::vector<std::string> unknown_;
};

}  // namespace mpix
