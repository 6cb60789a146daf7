// nccl-tests' own output read as a measured ringlab.bench/1 report (report/nccl_tests_input.hpp):
// the fixtures in tests/data/nccl-tests/ (written for these tests from nccl-tests' format, N = 4),
// each refusal with its line, and the round trip from ringlab's nccl-tests table back to times.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "report/nccl_tests_format.hpp"
#include "report/nccl_tests_input.hpp"
#include "simulator/compare.hpp"

namespace ringlab::report {
namespace {

const std::string data_dir = RINGLAB_SOURCE_DIR "/tests/data/nccl-tests/";

std::string fixture(const std::string& name) {
  std::ifstream file(data_dir + name);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string text_refusal(const std::string& text) {
  try {
    nccl_tests_text_report(text, "run.txt", "ring");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

std::string json_refusal(const nlohmann::json& document) {
  try {
    nccl_tests_json_report(document, "run.json", "ring");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

const nlohmann::json& row(const nlohmann::json& report, std::size_t index) { return report.at("results").at(index); }

TEST(NcclTestsInput, ReadsTheTextTable) {
  const nlohmann::json report = read_bench_document(data_dir + "allreduce-n4.txt", "ring");
  EXPECT_EQ(report.at("kind"), "measured");
  EXPECT_EQ(report.at("config").at("nranks"), 4);
  EXPECT_EQ(report.at("config").at("backend"), "nccl");
  EXPECT_EQ(report.at("config").at("datatype"), "float32");
  EXPECT_EQ(report.at("config").at("op"), "sum");
  EXPECT_EQ(report.at("config").at("stepfactor"), 8);
  EXPECT_EQ(report.at("config").at("iters"), 20);
  EXPECT_EQ(report.at("config").at("check"), true);
  EXPECT_EQ(report.at("machine").at("hostname"), "node-a");
  EXPECT_EQ(report.at("machine").at("nccl_version"), "2.27.3");
  EXPECT_EQ(report.at("machine").at("gpus").size(), 4u);
  ASSERT_EQ(report.at("results").size(), 16u);  // 8 sizes x 2 placements
  EXPECT_EQ(row(report, 0).at("placement"), "out-of-place");
  EXPECT_DOUBLE_EQ(row(report, 0).at("time_us").at("p50").get<double>(), 18.00);
  EXPECT_DOUBLE_EQ(row(report, 1).at("time_us").at("p50").get<double>(), 18.40);
  EXPECT_EQ(row(report, 15).at("size_bytes"), 16777216);
  EXPECT_EQ(row(report, 15).at("count"), 4194304);
  EXPECT_EQ(row(report, 15).at("algorithm"), "ring");
  // busbw from the time, as ringlab's reports define it: algbw x 2(N-1)/N.
  EXPECT_NEAR(row(report, 14).at("busbw_gbps").get<double>(), 43.60, 0.01);
}

TEST(NcclTestsInput, ReadsTheOlderTableWithoutRoot) {
  const nlohmann::json report = read_bench_document(data_dir + "allreduce-old-n4.txt", "hierarchical");
  EXPECT_EQ(report.at("config").at("nranks"), 4);
  ASSERT_EQ(report.at("results").size(), 16u);
  EXPECT_EQ(row(report, 0).at("algorithm"), "hierarchical");
  // Its "error" column is a deviation (1e-07), not a count: nothing checked in ringlab's sense.
  EXPECT_EQ(report.at("config").at("check"), false);
  EXPECT_EQ(row(report, 3).at("wrong"), -1);
  EXPECT_DOUBLE_EQ(row(report, 15).at("time_us").at("p50").get<double>(), 566.46);
}

TEST(NcclTestsInput, ReadsTheJsonAsTheText) {
  const nlohmann::json text = read_bench_document(data_dir + "allreduce-n4.txt", "ring");
  const nlohmann::json json = read_bench_document(data_dir + "allreduce-n4.json", "ring");
  EXPECT_EQ(json.at("config").at("nranks"), 4);
  EXPECT_EQ(json.at("command").get<std::string>().rfind("./build/all_reduce_perf_mpi -b 8", 0), 0u);
  ASSERT_EQ(json.at("results").size(), text.at("results").size());
  for (std::size_t i = 0; i < json.at("results").size(); ++i)
    EXPECT_NEAR(row(json, i).at("time_us").at("p50").get<double>(), row(text, i).at("time_us").at("p50").get<double>(),
                0.005);
}

// -T adds a timestamp (two fields) after the in-place columns; --per-iter-timing (2.19) adds
// i_min, i_max, i_p99 and i_cv% after each placement's #wrong. Both are read by the titles' names.
TEST(NcclTestsInput, ReadsTimestampAndPerIterationColumns) {
  const std::string good = fixture("allreduce-n4.txt");
  std::string stamped;
  std::string per_iteration;
  std::size_t start = 0;
  while (start < good.size()) {
    const std::size_t stop = good.find('\n', start);
    std::string line = good.substr(start, stop - start);
    start = stop + 1;
    std::string extended = line;
    if (line.starts_with("#       size")) {
      line += "            timestamp";
      const std::size_t second = extended.find("time", extended.find("#wrong"));
      extended.insert(second, "i_min i_max i_p99 i_cv% ");
      extended += " i_min i_max i_p99 i_cv%";
    } else if (!line.empty() && line[0] == ' ') {
      line += "  2026-12-07 10:00:00";
      const std::size_t second = 52 + 33;  // size..root, then the out-of-place figures
      extended.insert(second, "    1.00    2.00    2.00    3.5");
      extended += "    1.00    2.00    2.00    3.5";
    }
    stamped += line + "\n";
    per_iteration += extended + "\n";
  }
  for (const std::string& text : {stamped, per_iteration}) {
    const nlohmann::json report = nccl_tests_text_report(text, "run.txt", "ring");
    ASSERT_EQ(report.at("results").size(), 16u) << text;
    EXPECT_DOUBLE_EQ(row(report, 15).at("time_us").at("p50").get<double>(), 566.46) << text;
  }
}

TEST(NcclTestsInput, CompareReadsItAsAMeasuredReport) {
  const simulator::MeasuredReport report = simulator::read_measured_report(data_dir + "allreduce-n4.txt", "ring");
  EXPECT_EQ(report.nranks, 4);
  ASSERT_EQ(report.rows.size(), 16u);
  EXPECT_NEAR(report.rows[4].measured_seconds, 18.02e-6, 1e-12);  // 512 B out-of-place
}

TEST(NcclTestsInput, RefusesNamingTheLine) {
  const std::string good = fixture("allreduce-n4.txt");
  // Rows are lines 16..23; the closing lines 24 and 25.
  EXPECT_NE(text_refusal(good.substr(0, good.find("      262144") + 40)).find("run.txt line 21: the row has 3 fields where the column titles (line 14) name 13"),
            std::string::npos);
  EXPECT_NE(text_refusal(good.substr(0, good.find("# Out of bounds"))).find("run.txt line 23: the table of line 14 never closes"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "# Avg bus bandwidth    : 12.1975 \n", "")).find("line 27: the table of line 14 never closes"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "36.20       0", "36.20       3")).find("run.txt line 22: #wrong is 3 in-place"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "starting: all_reduce_perf", "starting: reduce_scatter_perf"))
                .find("run.txt line 2: this is reduce_scatter_perf output"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "18.14", "18.x4")).find("run.txt line 19: out-of-place time '18.x4' is not a number"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "29.06   43.60", "29.06   29.06")).find("run.txt line 23: out-of-place busbw 29.06 is not algbw 29.06 x 2(N-1)/N = 43.59"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "     4194304", "    16777216")).find("run.txt line 23: size 16777216 B is not count"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "values : 0 OK", "values : 2 FAILED")).find("run.txt line 24: nccl-tests counted 2"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, " float     sum      -1    18.00", "double     sum      -1    18.00"))
                .find("run.txt line 16: size 8 B is not count 2 x 8 B"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "float     sum      -1    87.91", "float     max      -1    87.91"))
                .find("run.txt line 22: type float and op max differ from the first row's (float sum)"),
            std::string::npos);
  EXPECT_NE(text_refusal(replaced(good, "float     sum      -1    18.00", "  int8     sum      -1    18.00"))
                .find("run.txt line 16: type 'int8' has no ringlab counterpart"),
            std::string::npos);
  std::string no_ranks = good;
  while (no_ranks.find("#  Rank") != std::string::npos) no_ranks = replaced(no_ranks, "#  Rank", "#  Host");
  EXPECT_NE(text_refusal(no_ranks).find("run.txt line 16: no '#  Rank R"), std::string::npos);
  EXPECT_NE(text_refusal("hello\n").find("no all_reduce_perf table"), std::string::npos);
}

TEST(NcclTestsInput, RefusesBadJson) {
  const nlohmann::json good = nlohmann::json::parse(fixture("allreduce-n4.json"));
  EXPECT_EQ(json_refusal(good), "accepted");
  nlohmann::json bad = good;
  bad.erase("average_bus_bandwidth");
  EXPECT_NE(json_refusal(bad).find("run.json: no average_bus_bandwidth after results[7]"), std::string::npos);
  bad = good;
  bad["results"][2]["in_place"]["nwrong"] = 1.0;
  EXPECT_NE(json_refusal(bad).find("run.json results[2]: #wrong is 1 in-place"), std::string::npos);
  bad = good;
  bad["args"][0] = "./build/all_gather_perf";
  EXPECT_NE(json_refusal(bad).find("run.json args[0]: './build/all_gather_perf' is not all_reduce_perf"),
            std::string::npos);
  bad = good;
  bad["results"][4]["out_of_place"]["time"] = "nan";
  EXPECT_NE(json_refusal(bad).find("run.json results[4].out_of_place.time: expected a number"), std::string::npos);
  bad = good;
  bad["out_of_bounds"]["count"] = 5;
  EXPECT_NE(json_refusal(bad).find("run.json out_of_bounds.count: nccl-tests counted 5"), std::string::npos);
}

// ringlab's own nccl-tests table (simulate --emulate nccl, bench --format nccl-tests) read back
// gives every time within its print rounding: 2 decimals, fewer where the 7 characters are full.
TEST(NcclTestsInput, RoundTripOfRingLabsTable) {
  nlohmann::json results = nlohmann::json::array();
  const double times[] = {3.14159, 98.7654, 4321.987, 98765.43, 1234567.8};
  std::int64_t size = 64;
  for (const double time_us : times) {
    for (const bool in_place : {false, true}) {
      const double us = in_place ? time_us * 1.01 : time_us;
      const double algbw = static_cast<double>(size) / us / 1e3;
      results.push_back({{"algorithm", "ring"}, {"size_bytes", size}, {"count", size / 4}, {"type", "float32"},
                         {"redop", "sum"}, {"placement", in_place ? "in-place" : "out-of-place"},
                         {"time_us", {{"avg", us}, {"min", us}, {"p50", us}, {"p99", us}, {"max", us}, {"cv", 0.0}}},
                         {"algbw_gbps", algbw}, {"busbw_gbps", algbw * 1.5}, {"wrong", -1}});
    }
    size *= 64;
  }
  const nlohmann::json predicted = {
      {"schema", "ringlab.bench/1"}, {"complete", true}, {"kind", "predicted"}, {"created", "2026-12-07T12:00:00Z"},
      {"command", "ringlab simulate --emulate nccl"}, {"machine", {{"hostname", "host"}}},
      {"config", {{"backend", "simulator"}, {"nranks", 4}, {"datatype", "float32"}, {"op", "sum"}, {"minbytes", 64},
                  {"maxbytes", size / 64}, {"stepfactor", 64}, {"stepbytes", 0}, {"iters", 1}, {"warmup_iters", 0},
                  {"check", false}, {"average", "max"}, {"segment_bytes", 1048576}, {"algorithms", {"ring"}},
                  {"baseline", "ring"}, {"converge", nullptr}}},
      {"results", results}};
  const std::string text = nccl_tests_preamble(predicted, false) + nccl_tests_text(predicted);
  const nlohmann::json back = nccl_tests_text_report(text, "table", "ring");
  EXPECT_EQ(back.at("config").at("nranks"), 4);
  ASSERT_EQ(back.at("results").size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const double original = results[i].at("time_us").at("avg").get<double>();
    const double read = row(back, i).at("time_us").at("p50").get<double>();
    // 7 characters: 2 decimals below 1e4, 1 below 1e5, none below 1e7.
    const double rounding = original < 1e4 ? 0.005 : original < 1e5 ? 0.05 : 0.5;
    EXPECT_LE(std::abs(read - original), rounding) << i << ": " << original << " read as " << read;
    EXPECT_EQ(row(back, i).at("placement"), results[i].at("placement"));
  }
}

// With RINGLAB_NCCL_TESTS_DUMP=DIR, writes each fixture's report there for plotting/validate_report.py
// (CTest cli.nccl_tests_reports_validate); without it, nothing to do.
TEST(NcclTestsInput, DumpsReportsForTheValidator) {
  const char* dir = std::getenv("RINGLAB_NCCL_TESTS_DUMP");
  if (!dir) GTEST_SKIP() << "RINGLAB_NCCL_TESTS_DUMP not set";
  for (const char* name : {"allreduce-n4.txt", "allreduce-old-n4.txt", "allreduce-n4.json"}) {
    std::ofstream file(std::string(dir) + "/" + name + ".report.json");
    file << read_bench_document(data_dir + name, "ring").dump(1);
    ASSERT_TRUE(file.good()) << dir;
  }
}

}  // namespace
}  // namespace ringlab::report
