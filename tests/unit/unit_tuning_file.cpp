// The tuning file: what mpix_tune writes reads back the same, and every
// malformed file is refused with its file, line and key.
#include <gtest/gtest.h>

#include "collectives/alltoallv/family.hpp"
#include "collectives/registry.hpp"
#include "selector/tuning_file.hpp"

namespace {

std::string error_of(const std::string& text) {
  try {
    mpix::parse_tuning(text, "t.json", {});
  } catch (const mpix::TuningFileError& e) {
    return e.what();
  }
  return "";
}

const char* header = "{\n \"format\": \"mpix-rma-tuning\",\n \"version\": 1,\n";

}  // namespace

TEST(TuningFile, BuiltInDefaultsCoverEveryCandidateAndSayWhereTheyComeFrom) {
  const mpix::TuningParameters t = mpix::builtin_tuning();
  EXPECT_NE(t.source.find("measured"), std::string::npos) << t.source;
  for (const auto* row : mpix::alltoallv_algorithms()) {
    if (std::string(row->name) == mpix::default_algorithm) continue;
    const auto it = t.algorithms.find(row->name);
    ASSERT_NE(it, t.algorithms.end()) << row->name;
    EXPECT_FALSE(it->second.node.empty()) << row->name;
    EXPECT_FALSE(it->second.node_user.empty()) << row->name;
    EXPECT_FALSE(it->second.net.empty()) << row->name;
    EXPECT_FALSE(it->second.self.empty()) << row->name;
    EXPECT_FALSE(it->second.self_user.empty()) << row->name;
    EXPECT_FALSE(it->second.multi_node_self.empty()) << row->name;
    EXPECT_GT(it->second.one_node.init_us, 0) << row->name;
    EXPECT_GT(it->second.multi_node.init_us, 0) << row->name;
  }
}

TEST(TuningFile, WhatIsWrittenReadsBackTheSame) {
  const mpix::TuningParameters t = mpix::builtin_tuning();
  const std::string text = mpix::tuning_to_json(t);
  const mpix::TuningParameters back = mpix::parse_tuning(text, "round trip", {});
  EXPECT_EQ(mpix::tuning_to_json(back), text);
  EXPECT_EQ(mpix::tuning_fingerprint(back), mpix::tuning_fingerprint(t));
}

TEST(TuningFile, KeysAFileLeavesOutKeepTheBaseValues) {
  const mpix::TuningParameters base = mpix::builtin_tuning();
  const auto t = mpix::parse_tuning(std::string(header) +
                                        " \"algorithms\": {\"pscw\": {\"one_node\": {\"sync_us\": 42}}}\n}",
                                    "t.json", base);
  EXPECT_EQ(t.algorithms.at("pscw").one_node.sync_us, 42);
  EXPECT_EQ(t.algorithms.at("pscw").one_node.init_us, base.algorithms.at("pscw").one_node.init_us);
  EXPECT_EQ(t.algorithms.at("fence").one_node.sync_us, base.algorithms.at("fence").one_node.sync_us);
  EXPECT_NE(mpix::tuning_fingerprint(t), mpix::tuning_fingerprint(base));
}

TEST(TuningFile, NotJsonNamesTheLine) {
  const std::string e = error_of(std::string(header) + " \"algorithms\": {\n  \"pscw\": [1, 2,]\n }\n}");
  EXPECT_NE(e.find("t.json: line 5: not valid JSON"), std::string::npos) << e;
}

TEST(TuningFile, AWrongValueNamesTheLineAndTheKey) {
  const std::string e = error_of(std::string(header) +
                                 " \"algorithms\": {\n  \"fence\": {\n   \"one_node\": {\"sync_us\": \"fast\"}\n  }\n }\n}");
  EXPECT_NE(e.find("t.json: line 6: key 'algorithms.fence.one_node.sync_us': expected a number, found string"),
            std::string::npos)
      << e;
}

TEST(TuningFile, UnknownKeysWrongVersionsAndBadCurvesAreRefused) {
  EXPECT_NE(error_of(std::string(header) + " \"algoritms\": {}\n}").find("line 4: key 'algoritms': unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("{\"format\": \"mpix-rma-tuning\", \"version\": 2}").find("key 'version': version 2"),
            std::string::npos);
  EXPECT_NE(error_of("{\"format\": \"something else\", \"version\": 1}").find("key 'format'"), std::string::npos);
  const std::string e =
      error_of(std::string(header) + " \"algorithms\": {\"lock\": {\"node_us\": [[8, 1], [4, 2]]}}\n}");
  EXPECT_NE(e.find("key 'algorithms.lock.node_us': bytes must increase"), std::string::npos) << e;
  EXPECT_NE(error_of(std::string(header) + " \"algorithms\": {\"lock\": {\"net_us\": [[8, -1]]}}\n}")
                .find("expected a number in [0,"),
            std::string::npos);
}

TEST(TuningFile, NonsenseNumbersAreRefusedWithTheirLineAndKey) {
  auto algorithms = [](const std::string& body) { return std::string(header) + " \"algorithms\": {\n" + body + "\n}\n}"; };
  // A literal no double holds: nlohmann throws out_of_range, not parse_error.
  std::string e = error_of(algorithms("  \"pscw\": {\"one_node\": {\"sync_us\": 1e999}}"));
  EXPECT_NE(e.find("t.json: line 5: key 'sync_us': 1e999 is out of range"), std::string::npos) << e;
  e = error_of(algorithms("  \"pscw\": {\"one_node\": {\"sync_us\": 1e308}}"));
  EXPECT_NE(e.find("key 'algorithms.pscw.one_node.sync_us': expected a number in [0,"), std::string::npos) << e;
  e = error_of("{\"format\": \"mpix-rma-tuning\", \"version\": 4294967297}");
  EXPECT_NE(e.find("key 'version'"), std::string::npos) << e;
  e = error_of(std::string(header) + " \"calibration_ranks\": 1000000000000\n}");
  EXPECT_NE(e.find("key 'calibration_ranks': expected an integer in [1, "), std::string::npos) << e;
  e = error_of(std::string(header) + " \"calibration_ranks\": 2.5\n}");
  EXPECT_NE(e.find("key 'calibration_ranks': expected an integer"), std::string::npos) << e;
  e = error_of(algorithms("  \"lock\": {\"node_us\": {}}"));
  EXPECT_NE(e.find("key 'algorithms.lock.node_us': expected an array"), std::string::npos) << e;
  e = error_of(std::string(header) + " \"loop\": \"sometimes\"\n}");
  EXPECT_NE(e.find("key 'loop'"), std::string::npos) << e;
}

TEST(TuningFile, OnlyRegisteredAlgorithmsAreAccepted) {
  const std::vector<std::string> known = {"pscw", "lock"};
  const std::string text = std::string(header) + " \"algorithms\": {\"lokc\": {}}\n}";
  try {
    mpix::parse_tuning(text, "t.json", {}, &known);
    FAIL() << "no error";
  } catch (const mpix::TuningFileError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'algorithms.lokc': not a registered algorithm (registered: pscw, lock)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(mpix::parse_tuning(text, "t.json", {}));  // mpix_tune's own reading knows no registry
}

TEST(TuningFile, DevicesDirectoriesAndHugeFilesAreRefusedBeforeReading) {
  for (const char* path : {"/dev/zero", "/tmp"}) {
    try {
      mpix::read_tuning_file(path, {});
      FAIL() << path << ": no error";
    } catch (const mpix::TuningFileError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(path) + ": not a regular file"), std::string::npos) << e.what();
    }
  }
}

TEST(TuningFile, AMissingFileIsNamed) {
  try {
    mpix::read_tuning_file("/nonexistent/tuning.json", {});
    FAIL() << "no error";
  } catch (const mpix::TuningFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/tuning.json: cannot be read"), std::string::npos);
  }
}
