// The configuration table, parsed without MPI.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>

#include "collectives/alltoallv/config.hpp"
#include "collectives/auto/settings.hpp"
#include "collectives/neighbor_alltoallv/config.hpp"
#include "families.hpp"  // generated: every family of collectives/families.def
#include "intercept/intercept_config.hpp"
#include "rma/window_config.hpp"
#include "src/config.hpp"

using mpix::Configuration;
using mpix::ConfigError;

TEST(Config, DefaultsWhenNothingIsSet) {
  const Configuration c = Configuration::parse({});
  EXPECT_EQ(c.values().section<mpix::AlltoallvConfig>().algorithm, "");
  EXPECT_EQ(c.values().section<mpix::AutoConfig>().fallback, mpix::FallbackPolicy::warn);
  EXPECT_EQ(c.values().node_size, 0);
  EXPECT_EQ(c.values().verbose, 0);
  ASSERT_EQ(c.settings().size(), mpix::variable_table().size());
  for (const auto& s : c.settings()) {
    EXPECT_FALSE(s.from_environment) << s.spec->name;
    EXPECT_EQ(s.value, s.spec->default_value) << s.spec->name;
  }
  EXPECT_TRUE(c.unknown_variables().empty());
}

// Every family's two variables (collectives/family.hpp): its forced
// algorithm and the algorithms kept out of its auto. Read at the first
// call, after every family's constant is made.
const std::set<std::string>& family_variables() {
  static const std::set<std::string> names = {
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) mpix::folder##_family.variable, mpix::folder##_family.exclude_variable,
#include "collectives/families.def"
#undef MPIX_FAMILY
  };
  return names;
}

template <class Family>
void expect_variables_read(const Family& family) {
  const Configuration c = Configuration::parse({{family.variable, "native"}, {family.exclude_variable, " fence, lock ,,pscw"}});
  EXPECT_EQ(family.forced(c.values()), "native") << family.variable;
  EXPECT_EQ(family.excluded(c.values()), (std::vector<std::string>{"fence", "lock", "pscw"})) << family.exclude_variable;
  for (const auto& s : c.settings()) {
    const std::string name = s.spec->name;  // compared as text: equal literals need not share an address
    EXPECT_EQ(s.from_environment, name == family.variable || name == family.exclude_variable) << name;
  }
}

TEST(Config, EveryFamilyReadsItsVariables) {
  constexpr std::size_t families = 0
#define MPIX_FAMILY(...) +1
#include "collectives/families.def"
#undef MPIX_FAMILY
      ;
  EXPECT_EQ(family_variables().size(), 2 * families);  // no two families share a variable
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) expect_variables_read(mpix::folder##_family);
#include "collectives/families.def"
#undef MPIX_FAMILY
}

TEST(Config, ValidValuesAreParsed) {
  const Configuration c = Configuration::parse({{"MPIX_FALLBACK", "error"},
                                                {"MPIX_NODE_SIZE", "3"},
                                                {"MPIX_VERBOSE", "2"},
                                                {"MPIX_NODE_PATH", "cma"},
                                                {"MPIX_CMA_MIN_BYTES", "65536"},
                                                {"MPIX_WIN_THREAD_SLOTS", "8"},
                                                {"MPIX_TUNING_FILE", "/tmp/t.json"},
                                                {"MPIX_EXPECTED_ITERATIONS", "50"},
                                                {"MPIX_AUTO_PERIODS", "0"},
                                                {"MPIX_AUTO_WITHIN", "3.5"},
                                                {"MPIX_AUTO_SETTLE", "50"},
                                                {"MPIX_NEIGHBOR_PACK_BYTES", "512"},
                                                {"MPIX_CHANNEL", "off"},
                                                {"MPIX_CHANNEL_CHUNK_BYTES", "4096"},
                                                {"MPIX_CHANNEL_STAGING_BYTES", "65536"},
                                                {"MPIX_CHANNEL_SINGLE_COPY_BYTES", "262144"},
                                                {"MPIX_CHANNEL_SPIN", "0"},
                                                {"MPIX_CHANNEL_CMA_BYTES", "1048576"},
                                                {"MPIX_CHANNEL_LOCKSTEP_BYTES", "8192"},
                                                {"MPIX_INTERCEPT", "off"},
                                                {"MPIX_INTERCEPT_REPEATS", "5"},
                                                {"MPIX_INTERCEPT_ENTRIES", "16"},
                                                {"MPIX_INTERCEPT_MIN_BYTES", "0"},
                                                {"MPIX_INTERCEPT_AGREEMENT", "channel"},
                                                {"MPIX_INTERCEPT_ADMISSION", "repeats"},
                                                {"MPIX_INTERCEPT_PERSISTENT", "library"},
                                                {"MPIX_INTERCEPT_NONBLOCKING", "off"},
                                                {"MPIX_INTERCEPT_BLOCKING", "agreed"},
                                                {"MPIX_PTRACE_PEERS", "off"}});
  EXPECT_EQ(c.values().section<mpix::AutoConfig>().fallback, mpix::FallbackPolicy::error);
  EXPECT_EQ(c.values().node_size, 3);
  EXPECT_EQ(c.values().verbose, 2);
  EXPECT_EQ(c.values().section<mpix::WindowConfig>().node_path, mpix::NodePath::cma);
  EXPECT_EQ(c.values().section<mpix::WindowConfig>().cma_min_bytes, 65536);
  EXPECT_EQ(c.values().section<mpix::WindowConfig>().thread_slots, 8);
  const mpix::AlltoallvConfig& alltoallv = c.values().section<mpix::AlltoallvConfig>();
  EXPECT_EQ(alltoallv.tuning_file, "/tmp/t.json");
  const mpix::AutoConfig& autos = c.values().section<mpix::AutoConfig>();
  EXPECT_EQ(autos.expected_iterations, 50);
  EXPECT_EQ(autos.auto_periods, 0);
  EXPECT_DOUBLE_EQ(autos.auto_within, 3.5);
  EXPECT_EQ(autos.auto_settle, 50);
  EXPECT_EQ(c.values().section<mpix::NeighborConfig>().pack_bytes, 512u);
  EXPECT_FALSE(c.values().section<mpix::NodeConfig>().channel);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().chunk_bytes, 4096);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().staging_bytes, 65536);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().single_copy_bytes, 262144);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().spin_polls, 0);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().cma_bytes, 1048576);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().lockstep_bytes, 8192);
  EXPECT_FALSE(c.values().section<mpix::InterceptConfig>().enabled);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().repeats, 5);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().entries, 16);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().min_bytes, 0);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().agreement, mpix::AgreementPath::channel);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().admission, mpix::AdmissionPolicy::repeats);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().persistent, mpix::PersistentPolicy::library);
  EXPECT_FALSE(c.values().section<mpix::InterceptConfig>().nonblocking);
  EXPECT_EQ(c.values().section<mpix::InterceptConfig>().blocking, mpix::BlockingPath::agreed);
  EXPECT_EQ(c.values().section<mpix::NodeConfig>().ptrace_peers, mpix::PtracePeers::off);
  // Every variable but the families' own, which the next test sets.
  for (const auto& s : c.settings())
    EXPECT_TRUE(s.from_environment || family_variables().count(s.spec->name) > 0) << s.spec->name;
}

TEST(Config, VerbosityAboveTheLastLevelMeansTheLastLevel) {
  EXPECT_EQ(Configuration::parse({{"MPIX_VERBOSE", "3"}}).values().verbose, 2);
  EXPECT_EQ(Configuration::parse({{"MPIX_VERBOSE", "100"}}).values().verbose, 2);
}

TEST(Config, EachFallbackPolicy) {
  const auto fallback = [](const char* value) {
    return Configuration::parse({{"MPIX_FALLBACK", value}}).values().section<mpix::AutoConfig>().fallback;
  };
  EXPECT_EQ(fallback("silent"), mpix::FallbackPolicy::silent);
  EXPECT_EQ(fallback("warn"), mpix::FallbackPolicy::warn);
}

struct BadValue {
  const char* name;
  const char* value;
  const char* accepted;
};

class ConfigInvalid : public ::testing::TestWithParam<BadValue> {};

TEST_P(ConfigInvalid, ErrorNamesVariableValueAndAcceptedValues) {
  const BadValue bad = GetParam();
  try {
    Configuration::parse({{bad.name, bad.value}});
    FAIL() << bad.name << "=" << bad.value << " was accepted";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(bad.name), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("'") + bad.value + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(bad.accepted), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Values, ConfigInvalid,
    ::testing::Values(BadValue{"MPIX_NODE_SIZE", "abc", "positive integer"},
                      BadValue{"MPIX_NODE_SIZE", "-1", "positive integer"},
                      BadValue{"MPIX_NODE_SIZE", "2x", "positive integer"},
                      BadValue{"MPIX_NODE_SIZE", "", "positive integer"},
                      BadValue{"MPIX_NODE_SIZE", "99999999999", "positive integer"},
                      BadValue{"MPIX_VERBOSE", "-1", "0|1|2"},
                      BadValue{"MPIX_FALLBACK", "loud", "error|warn|silent"},
                      BadValue{"MPIX_FALLBACK", "ERROR", "error|warn|silent"},
                      BadValue{"MPIX_CHANNEL_CHUNK_BYTES", "8", "64..16777216"},
                      BadValue{"MPIX_CHANNEL_STAGING_BYTES", "100", "256..1073741824"},
                      BadValue{"MPIX_INTERCEPT", "yes", "on|off"},
                      BadValue{"MPIX_INTERCEPT_ENTRIES", "17", "1..16"},
                      BadValue{"MPIX_INTERCEPT_AGREEMENT", "shm", "auto|mpi|channel"},
                      BadValue{"MPIX_INTERCEPT_ADMISSION", "never", "rent|repeats"},
                      BadValue{"MPIX_INTERCEPT_PERSISTENT", "auto", "progress|mpi|library"},
                      BadValue{"MPIX_INTERCEPT_NONBLOCKING", "yes", "on|off"},
                      BadValue{"MPIX_INTERCEPT_BLOCKING", "on", "claimed|agreed"}));

TEST(Config, UnknownMpixVariablesAreReported) {
  const Configuration c = Configuration::parse({{"MPIX_ALGORITHM", "native"}, {"MPIX_VERBOSE", "1"}});
  ASSERT_EQ(c.unknown_variables().size(), 1u);
  EXPECT_EQ(c.unknown_variables()[0], "MPIX_ALGORITHM");
}

TEST(Config, TableRowsAreCompleteAndUnique) {
  std::set<std::string> names;
  for (const auto& spec : mpix::variable_table()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_EQ(std::string(spec.name).rfind("MPIX_", 0), 0u) << spec.name;
    EXPECT_GT(std::string(spec.description).size(), 20u) << spec.name;
    EXPECT_GT(std::string(spec.accepted).size(), 0u) << spec.name;
  }
}

// docs/configuration.md's table is generated (docs.generated_tables checks
// it against mpix_info); this holds every variable to being in it.
TEST(Config, DocsDocumentEveryVariable) {
  std::ifstream page(MPIX_SOURCE_DIR "/docs/configuration.md");
  ASSERT_TRUE(page.good());
  const std::string text((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  for (const auto& spec : mpix::variable_table())
    EXPECT_NE(text.find(std::string("| `") + spec.name + "` |"), std::string::npos)
        << spec.name << " missing from docs/configuration.md";
}
