// mpix_info: what this mpix-rma build is and how it is configured, like
// ompi_info / ucc_info. Runs standalone or under mpiexec (then it also shows
// the node layout of MPI_COMM_WORLD).
#include <mpix/mpix.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectives/alltoallv/config.hpp"
#include "collectives/registry.hpp"
#include "tools/command_line.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "node/node_channel.hpp"
#include "src/config.hpp"
#include "capi/handles.hpp"
#include "src/library.hpp"

namespace {

void print_layout(const mpix::Comm& comm, int emulated_node_size) {
  std::vector<int> node_of(comm.size());
  for (int r = 0; r < comm.size(); ++r) node_of[r] = comm.node_of(r);
  std::printf("Node layout: %d rank(s) on %d node(s)", comm.size(), comm.num_nodes());
  if (emulated_node_size > 0)
    std::printf(" (emulated: MPIX_NODE_SIZE=%d cuts the real nodes into nodes of that many ranks)", emulated_node_size);
  std::printf("\n");
  for (int node = 0; node < comm.num_nodes(); ++node) {
    std::printf("  node %d:", node);
    for (int r = 0; r < comm.size(); ++r) {
      if (node_of[r] == node) std::printf(" %d", r);
    }
    std::printf("\n");
  }
  std::printf("  %s\n", mpix::ChannelSettings::waiting_summary(comm).c_str());
}

void print_variables(const mpix::Configuration& configuration) {
  std::printf("\nEnvironment variables (* = set):\n");
  for (const mpix::VariableSetting& s : configuration.settings()) {
    std::printf("  %s%s = '%s'%s\n      type %s, default '%s', accepted: %s; %s\n      %s\n",
                s.from_environment ? "* " : "", s.spec->name, s.value.c_str(),
                s.from_environment ? " (set in the environment)" : "", s.spec->type,
                s.spec->default_value, s.spec->accepted,
                s.spec->scope == mpix::Scope::per_rank ? "may differ per rank"
                                                       : "the same on every rank (MPIX_Comm_init checks)",
                s.spec->description);
  }
  for (const std::string& name : configuration.unknown_variables())
    std::printf("  warning: %s is set but is not an mpix-rma variable\n", name.c_str());
}

// One collective family as users see it: its public listing.
struct ListedFamily {
  const char* folder;  // as collectives/families.def names it
  const char* title;   // its C entry points' name
  int (*count)(int*);
  int (*describe)(int, const char**, const char**, int*);
};

// Every family of collectives/families.def, in its order.
const ListedFamily listed_families[] = {
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) {#folder, #Name, MPIX_##Name##_algorithm_count, MPIX_##Name##_algorithm},
#include "collectives/families.def"
#undef MPIX_FAMILY
};

// The registered algorithms of a family through the public listing.
template <class Print>
void for_each_algorithm(const ListedFamily& family, Print&& print) {
  int count = 0;
  family.count(&count);
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    const char* description = nullptr;
    int capabilities = 0;
    family.describe(i, &name, &description, &capabilities);
    print(name, description, mpix::capability_list(static_cast<unsigned>(capabilities)));
  }
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

void print_algorithms() {
  for (const ListedFamily& family : listed_families) {
    std::printf("\n%s algorithms (MPIX_%s_ALGORITHM / info key mpix_%s_algorithm):\n", family.title,
                upper(family.folder).c_str(), family.folder);
    for_each_algorithm(family, [](const char* name, const char* description, const std::string& capabilities) {
      std::printf("  %-20s %s\n  %-20s [%s]\n", name, description, "", capabilities.c_str());
    });
  }
}

// Markdown keeps a table cell whole only without '|' and line breaks.
std::string table_cell(std::string text) {
  for (char& c : text) {
    if (c == '|') c = '/';
    if (c == '\n') c = ' ';
  }
  return text;
}

// The reference tables of docs/: every variable of the typed configuration
// table, or every family's registered algorithms. Generated here, checked
// against docs/ by a test, so the documentation cannot drift from the code.
void print_markdown(const std::string& table) {
  if (table == "variables") {
    std::printf("| variable | default | accepted | ranks | meaning |\n|---|---|---|---|---|\n");
    for (const mpix::VariableSpec& spec : mpix::variable_table()) {
      const std::string default_value = *spec.default_value ? std::string("`") + spec.default_value + "`" : "(empty)";
      std::printf("| `%s` | %s | %s | %s | %s |\n", spec.name, table_cell(default_value).c_str(),
                  table_cell(spec.accepted).c_str(), spec.scope == mpix::Scope::per_rank ? "per rank" : "alike",
                  table_cell(spec.description).c_str());
    }
    return;
  }
  for (const ListedFamily& family : listed_families) {
    if (table != std::string("algorithms:") + family.folder) continue;
    std::printf("| name | capabilities | what it does |\n|---|---|---|\n");
    for_each_algorithm(family, [](const char* name, const char* description, const std::string& capabilities) {
      std::printf("| `%s` | %s | %s |\n", name, capabilities.empty() ? "(none)" : capabilities.c_str(),
                  table_cell(description).c_str());
    });
    return;
  }
  std::fprintf(stderr, "mpix_info: --markdown takes variables or algorithms:<family>, not '%s'\n", table.c_str());
  std::exit(2);
}

// The selector's parameters: where they come from (MPIX_TUNING_FILE or the
// built-in measurements), or why they cannot be used.
void print_tuning(const mpix::Config& config) {
  const std::string& tuning_file = config.section<mpix::AlltoallvConfig>().tuning_file;
  std::printf("\nSelector (auto) parameters: %s\n",
              tuning_file.empty() ? "built-in" : ("MPIX_TUNING_FILE " + tuning_file).c_str());
  try {
    const mpix::TuningParameters& t = mpix::tuning_parameters(config);
    std::printf("  %s\n  calibrated at %d ranks, timed as the %s loop; algorithms with parameters:", t.source.c_str(),
                t.calibration_ranks, t.loop.c_str());
    for (const auto& [name, parameters] : t.algorithms) std::printf(" %s", name.c_str());
    std::printf("\n");
  } catch (const mpix::Error& e) {
    std::printf("  unusable: %s\n", e.what());
  }
}

void print_parsable(const mpix::Comm& comm, const mpix::Library& library, const std::string& mpi) {
  const mpix::Config& config = library.config();
  std::printf("version=%s\nmpi_library=%s\n", MPIX_RMA_VERSION_STRING, mpi.c_str());
  std::printf("layout.ranks=%d\nlayout.nodes=%d\nlayout.emulated=%d\n", comm.size(), comm.num_nodes(),
              config.node_size > 0 ? 1 : 0);
  std::printf("layout.machine_ranks=%d\nlayout.machine_cores=%d\nlayout.oversubscribed=%d\nchannel.spin_polls=%d\n",
              comm.machine_ranks(), comm.machine_cores(), comm.oversubscribed() ? 1 : 0,
              mpix::ChannelSettings::of(comm).spin_polls);
  for (const mpix::VariableSetting& v : library.configuration().settings())
    std::printf("variable.%s=%s\nvariable.%s.set=%d\n", v.spec->name, v.value.c_str(), v.spec->name,
                v.from_environment ? 1 : 0);
  for (const ListedFamily& family : listed_families) {
    std::printf("family=%s\n", family.folder);
    for_each_algorithm(family, [&](const char* name, const char*, const std::string& capabilities) {
      std::printf("%s.algorithm=%s\n%s.algorithm.%s.capabilities=%s\n", family.folder, name, family.folder, name,
                  capabilities.c_str());
    });
  }
  const std::string& tuning_file = config.section<mpix::AlltoallvConfig>().tuning_file;
  std::printf("tuning.file=%s\n", tuning_file.empty() ? "built-in" : tuning_file.c_str());
  try {
    std::printf("tuning.source=%s\n", mpix::tuning_parameters(config).source.c_str());
  } catch (const mpix::Error& e) {
    std::printf("tuning.unusable=%s\n", e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  enum class Mode { human, parsable } mode = Mode::human;
  bool version_only = false, parsable = false;
  CLI::App app(
      "Shows this mpix-rma build: version, MPI library, node hardware, the node layout of MPI_COMM_WORLD (run it "
      "under mpiexec to see several ranks), every MPIX_* variable with its value and whether it was set, the "
      "algorithms of every collective family with their capabilities and the selector's parameters.",
      "mpix_info");
  app.add_flag("--version", version_only, "the library's version and the MPI it was built with");
  app.add_flag("--parsable", parsable, "the same facts as key=value lines, for scripts");
  std::string markdown;
  app.add_option("--markdown", markdown,
                 "a reference table of docs/ as Markdown: variables, or algorithms:<family> "
                 "(alltoallv, alltoall, neighbor_alltoallv)");
  mpix_timing::parse_or_exit(app, argc, argv);  // before MPI_Init: --help, --version and --markdown need no MPI
  if (!markdown.empty()) {
    print_markdown(markdown);
    return 0;
  }
  if (version_only) {
    char version[MPIX_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPIX_Get_library_version(version, &len);
    std::printf("%s\n", version);
    return 0;
  }
  if (parsable) mode = Mode::parsable;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPIX_Comm* xcomm = nullptr;
  const int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != MPI_SUCCESS) {
    char message[MPIX_MAX_ERROR_STRING];
    int len = 0;
    MPIX_Error_string(rc, message, &len);
    if (rank == 0) std::fprintf(stderr, "mpix_info: %s\n", message);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    const std::string text(version, len);
    const std::string mpi = text.substr(0, text.find('\n'));
    mpix::Library& library = mpix::Library::get();
    if (mode == Mode::parsable) {
      print_parsable(*xcomm->comm, library, mpi);
    } else {
      std::printf("mpix-rma %s\nMPI library: %s\n", MPIX_RMA_VERSION_STRING, mpi.c_str());
      std::printf("Node hardware (hwloc): %s\n", library.topology().summary().c_str());
      print_layout(*xcomm->comm, library.config().node_size);
      print_variables(library.configuration());
      print_algorithms();
      print_tuning(library.config());
    }
  }
  MPIX_Comm_free(&xcomm);
  MPI_Finalize();
  return 0;
}
