// What the two examples share that has nothing to do with mpix-rma: command
// lines, the block distribution of rows or planes over ranks, and the
// interleaved timing of the exchange variants.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace example {

// "--key value" pairs, with defaults; unknown keys are an error.
class Options {
 public:
  Options(int argc, char** argv, std::map<std::string, std::string> defaults) : values_(std::move(defaults)) {
    for (int i = 1; i < argc; ++i) {
      const std::string key = argv[i];
      if (key.rfind("--", 0) != 0 || !values_.count(key.substr(2)) || i + 1 >= argc)
        throw std::invalid_argument("unknown option or missing value: " + key + " (options: " + names() + ")");
      values_[key.substr(2)] = argv[++i];
    }
  }
  std::string text(const std::string& key) const { return values_.at(key); }
  long number(const std::string& key) const {
    const std::string& v = values_.at(key);
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') throw std::invalid_argument("--" + key + " expects an integer, got '" + v + "'");
    return n;
  }
  std::vector<std::string> list(const std::string& key) const {
    std::vector<std::string> items;
    std::stringstream in(values_.at(key));
    for (std::string item; std::getline(in, item, ',');)
      if (!item.empty()) items.push_back(item);
    return items;
  }

 private:
  std::string names() const {
    std::string all;
    for (const auto& kv : values_) all += (all.empty() ? "--" : ", --") + kv.first;
    return all;
  }
  std::map<std::string, std::string> values_;
};

// n items over p ranks in contiguous blocks, the first n % p ranks one larger.
struct BlockDistribution {
  long n;
  int p;
  long count(int r) const { return n / p + (r < n % p ? 1 : 0); }
  long first(int r) const { return r * (n / p) + std::min<long>(r, n % p); }
  int owner(long i) const {
    const long big = n / p + 1, split = (n % p) * big;  // the first n % p blocks are one larger
    return i < split ? static_cast<int>(i / big) : static_cast<int>((n % p) + (i - split) / (n / p));
  }
};

// main() of an example: MPI around run(argc, argv); an exception (a bad
// option, an unreadable file) is reported as "name: what" and exit code 2.
template <class Run>
int run_with_mpi(int argc, char** argv, const char* name, Run run) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The slowest rank's value: what a bulk-synchronous application waits for.
inline double max_over_ranks(double local, MPI_Comm comm) {
  double global = local;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
  return global;
}

// One variant's times over the rounds (seconds per iteration, slowest rank).
struct Timings {
  std::vector<double> total, exchange;
};

// The report every example prints on rank 0, and appends to csv_path when
// one is given: per variant, the median over rounds of the time per
// iteration and of the exchange's part, with ratios to the first variant.
inline void report(const char* example, const std::string& csv_path, const std::string& setting,
                   const std::vector<std::string>& variants, const std::vector<std::string>& algorithms,
                   const std::vector<Timings>& timings, const char* iteration_name) {
  std::printf("%-18s %-18s %14s %14s %8s %10s %10s\n", "exchange", "algorithm", iteration_name, "exchange us",
              "share", "total/1st", "exch/1st");
  const double total0 = median(timings[0].total), exchange0 = median(timings[0].exchange);
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "a");
  if (!csv_path.empty() && !csv) std::fprintf(stderr, "%s: cannot append to %s\n", example, csv_path.c_str());
  if (csv && std::ftell(csv) == 0) std::fprintf(csv, "example,setting,exchange,algorithm,total_s,exchange_s\n");
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const double total = median(timings[v].total), exchange = median(timings[v].exchange);
    std::printf("%-18s %-18s %14.1f %14.1f %7.1f%% %10.3f %10.3f\n", variants[v].c_str(), algorithms[v].c_str(),
                total * 1e6, exchange * 1e6, 100.0 * exchange / total, total / total0, exchange / exchange0);
    if (csv)
      std::fprintf(csv, "%s,%s,%s,%s,%.9g,%.9g\n", example, setting.c_str(), variants[v].c_str(),
                   algorithms[v].c_str(), total, exchange);
  }
  if (csv) std::fclose(csv);
}

}  // namespace example
