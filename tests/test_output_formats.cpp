// The pure formatting functions of bench's other output formats: the nccl-tests table
// (nccl_tests_format.hpp), nccl-tests' JSON (nccl_tests_json.hpp), the CSV (csv_format.hpp) and the
// -d all / -o all merge (type_op_sweep.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/csv_format.hpp"
#include "report/nccl_tests_format.hpp"
#include "report/nccl_tests_json.hpp"
#include "bench/src/type_op_sweep.hpp"

namespace ringlab::bench {
namespace {

using report::command_arguments;
using report::csv_field;
using report::flatten_object;
using report::make_nccl_tests_json;
using report::nccl_tests_column_titles;
using report::nccl_tests_footer;
using report::nccl_tests_line;
using report::nccl_tests_number;
using report::nccl_tests_preamble;
using report::nccl_tests_tables;
using report::nccl_tests_text;
using report::nccl_tests_time;
using report::nccl_tests_type_name;
using report::nccl_version_code;
using report::NcclTestsLine;
using report::NcclTestsTable;
using report::report_csv;

nlohmann::json result_row(const std::string& algorithm, const std::string& type, std::int64_t size, bool in_place,
                          double time_us, double busbw, std::int64_t wrong = 0) {
  const std::int64_t element = type == "float64" || type == "int64" ? 8 : type == "float16" ? 2 : 4;
  return {{"algorithm", algorithm},
          {"size_bytes", size},
          {"count", size / element},
          {"type", type},
          {"redop", "sum"},
          {"placement", in_place ? "in-place" : "out-of-place"},
          {"time_us", {{"avg", time_us}, {"min", time_us}, {"p50", time_us}, {"p99", time_us}, {"max", time_us}, {"cv", 0.0}}},
          {"algbw_gbps", busbw / 2},
          {"busbw_gbps", busbw},
          {"wrong", wrong},
          {"iters", 20}};
}

nlohmann::json small_report() {
  nlohmann::json results = nlohmann::json::array();
  for (std::int64_t size : {1024, 4096})
    for (const char* algorithm : {"ring", "interval_paired"})
      for (bool in_place : {false, true}) results.push_back(result_row(algorithm, "float32", size, in_place, 10, 1.0));
  results[7]["busbw_gbps"] = 3.0;  // interval_paired, 4096 B, in-place
  return {{"schema", "ringlab.bench/1"},
          {"complete", true},
          {"kind", "measured"},
          {"created", "2026-12-02T14:40:00Z"},
          {"command", "ringlab bench --backend threads --ranks 2"},
          {"machine", {{"hostname", "host"}, {"nccl_version", nullptr}}},
          {"config",
           {{"backend", "threads"},
            {"nranks", 2},
            {"datatype", "float32"},
            {"op", "sum"},
            {"minbytes", 1024},
            {"maxbytes", 4096},
            {"stepfactor", 4},
            {"stepbytes", 0},
            {"iters", 20},
            {"warmup_iters", 5},
            {"check", true},
            {"average", "max"},
            {"segment_bytes", 1048576},
            {"algorithms", {"ring", "interval_paired"}},
            {"rank_cpus", {"0", "1"}}}},
          {"results", results}};
}

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

TEST(OutputFormatsNcclTests, NumbersFitTheirColumnAsNcclTestsPrintsThem) {
  EXPECT_EQ(nccl_tests_number(12.346, 7), "  12.35");  // two decimals when they fit
  EXPECT_EQ(nccl_tests_number(0.0, 6), "  0.00");
  EXPECT_EQ(nccl_tests_number(12345.67, 7), "12345.7");  // then one
  EXPECT_EQ(nccl_tests_number(123456.7, 7), " 123457");  // then none
  EXPECT_EQ(nccl_tests_number(1.5e9, 7), "1.5e+09");     // then an exponent
  EXPECT_EQ(nccl_tests_number(1.2e7, 6), " 1e+07");
}

TEST(OutputFormatsNcclTests, TypeNamesAreNcclTests) {
  EXPECT_EQ(nccl_tests_type_name("float32"), "float");
  EXPECT_EQ(nccl_tests_type_name("float64"), "double");
  EXPECT_EQ(nccl_tests_type_name("float16"), "half");
  EXPECT_EQ(nccl_tests_type_name("bfloat16"), "bfloat16");
  EXPECT_EQ(nccl_tests_type_name("int32"), "int32");
  EXPECT_EQ(nccl_tests_type_name("int64"), "int64");
  EXPECT_THROW(nccl_tests_type_name("float8"), std::invalid_argument);  // not a type a report names
}

TEST(OutputFormatsNcclTests, LineHasNcclTestsColumnsByteForByte) {
  NcclTestsLine line{1024, 256, "float", "sum", -1, 20, {10.5, 0.1, 0.15, 0}, {11, 0.09, 0.14, -1}};
  // size(12) count(12) type(8) redop(6) root(6), two spaces apart; then per placement time(7)
  // algbw(6) busbw(6) #wrong(6), two spaces before each; unchecked is "N/A" after four spaces.
  EXPECT_EQ(nccl_tests_line(line),
            "        1024           256     float     sum      -1"
            "    10.50    0.10    0.15       0"
            "    11.00    0.09    0.14    N/A\n");
}

TEST(OutputFormatsNcclTests, TitlesLineUpWithTheLines) {
  const std::string titles = nccl_tests_column_titles();
  std::vector<std::string> lines;
  std::istringstream stream(titles);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0], "#");
  EXPECT_EQ(split_words(lines[2]), (std::vector<std::string>{"#", "size", "count", "type", "redop", "root", "time", "algbw",
                                                             "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"}));
  const std::string line = nccl_tests_line({8, 2, "float", "sum", -1, 1, {1, 2, 3, 0}, {4, 5, 6, 0}});
  // Every column is right-aligned: "root" ends where "-1" ends, the last "#wrong" where the last count does.
  EXPECT_EQ(lines[2].find("root") + 4, line.find("-1") + 2);
  EXPECT_EQ(lines[2].rfind("#wrong") + 6, line.size() - 1);
}

TEST(OutputFormatsNcclTests, FooterIsNcclTestsTwoLines) {
  NcclTestsTable table;
  table.average_busbw_gbps = 1.5;
  EXPECT_EQ(nccl_tests_footer(table), "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5 \n#\n");
  table.failed_results = 2;
  EXPECT_EQ(nccl_tests_footer(table).substr(0, 36), "# Out of bounds values : 2 FAILED\n# ");
}

TEST(OutputFormatsNcclTests, OneTablePerAlgorithmPairingPlacements) {
  const std::vector<NcclTestsTable> tables = nccl_tests_tables(small_report());
  ASSERT_EQ(tables.size(), 2U);
  EXPECT_EQ(tables[0].algorithm, "ring");
  EXPECT_EQ(tables[1].algorithm, "interval_paired");
  ASSERT_EQ(tables[1].lines.size(), 2U);
  EXPECT_EQ(tables[1].lines[1].size_bytes, 4096);
  EXPECT_EQ(tables[1].lines[1].type, "float");
  EXPECT_DOUBLE_EQ(tables[1].lines[1].in_place.busbw_gbps, 3.0);
  EXPECT_DOUBLE_EQ(tables[0].average_busbw_gbps, 1.0);
  EXPECT_DOUBLE_EQ(tables[1].average_busbw_gbps, 1.5);  // (1 + 1 + 1 + 3) / 4
  EXPECT_EQ(tables[0].failed_results, 0);
}

TEST(OutputFormatsNcclTests, CountsResultsWithWrongElements) {
  nlohmann::json report = small_report();
  report["results"][0]["wrong"] = 7;
  report["results"][1]["wrong"] = 1;
  EXPECT_EQ(nccl_tests_tables(report)[0].failed_results, 2);
}

TEST(OutputFormatsNcclTests, RefusesARowWithoutItsOtherPlacement) {
  nlohmann::json report = small_report();
  report["results"].erase(1);  // ring, 1024 B, in-place
  try {
    nccl_tests_tables(report);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("ring at 1024 B"), std::string::npos) << error.what();
  }
}

TEST(OutputFormatsNcclTests, TextNamesEachAlgorithmAboveItsTable) {
  const std::string text = nccl_tests_text(small_report());
  const std::size_t ring = text.find("# Algorithm: ring\n#\n");
  const std::size_t paired = text.find("# Algorithm: interval_paired\n#\n");
  ASSERT_NE(ring, std::string::npos);
  ASSERT_NE(paired, std::string::npos);
  EXPECT_LT(ring, paired);
  EXPECT_NE(text.find("# Avg bus bandwidth    : 1.5 \n"), std::string::npos);
  EXPECT_NE(text.find("# Collective test concluded: all_reduce_perf\n"), std::string::npos);
}

TEST(OutputFormatsNcclTests, PreambleHasNcclTestsHeaderLine) {
  const std::string text = nccl_tests_preamble(small_report(), false);
  EXPECT_NE(text.find("# Collective test starting: all_reduce_perf\n"), std::string::npos);
  EXPECT_NE(text.find("# nThread 1 nGpus 0 minBytes 1024 maxBytes 4096 step: 4(factor) warmup iters: 5 iters: 20 "
                      "agg iters: 1 validation: 1 graph: 0 unalign: 0\n"),
            std::string::npos)
      << text;
}

TEST(OutputFormatsNcclJson, HasNcclTestsFieldsAndValueForms) {
  nlohmann::json report = small_report();
  report["config"]["check"] = false;
  for (nlohmann::json& row : report["results"]) row["wrong"] = -1;
  const nlohmann::json document = make_nccl_tests_json(report, {"2026-12-02 14:41:00"});
  EXPECT_EQ(document.at("version"), 3);
  EXPECT_EQ(document.at("start_time"), "2026-12-02 14:40:00");
  EXPECT_EQ(document.at("end_time"), "2026-12-02 14:41:00");
  EXPECT_EQ(document.at("args").size(), 6U);
  EXPECT_EQ(document.at("nccl_version"), 0);
  const nlohmann::json& config = document.at("config");
  EXPECT_EQ(config.at("step_factor"), 4);
  EXPECT_FALSE(config.contains("step_bytes"));
  EXPECT_EQ(config.at("validation"), 0);
  EXPECT_EQ(config.at("blocking_collectives"), "false");  // nccl-tests writes booleans as strings
  EXPECT_EQ(config.at("devices").size(), 2U);
  EXPECT_EQ(config.at("devices")[1].at("device_info"), "cpus 1");
  const nlohmann::json& results = document.at("results");
  ASSERT_EQ(results.size(), 4U);  // (2 sizes) x (2 algorithms), placements paired
  EXPECT_EQ(results[0].at("root"), "    -1");
  EXPECT_EQ(results[0].at("type"), "float");
  EXPECT_EQ(results[0].at("experiment_name"), "ring");
  EXPECT_EQ(results[3].at("experiment_name"), "interval_paired");
  EXPECT_EQ(results[3].at("in_place").at("bus_bw"), 3.0);
  EXPECT_TRUE(results[0].at("out_of_place").at("nwrong").is_null());
  EXPECT_EQ(results[0].at("actual_iterations"), 20);
  EXPECT_EQ(document.at("out_of_bounds").at("okay"), "true");
  EXPECT_DOUBLE_EQ(document.at("average_bus_bandwidth").at("bandwidth").get<double>(), 1.25);
  EXPECT_EQ(document.at("average_bus_bandwidth").at("okay"), "unchecked");
  EXPECT_EQ(document.at("ringlab").at("average_bus_bandwidth_by_algorithm").at("interval_paired"), 1.5);
}

// Whether the ranks run on GPUs comes from the caller (the backend registry), not from the report.
TEST(OutputFormatsNcclTests, GpuCountIsTheCallers) {
  EXPECT_NE(nccl_tests_preamble(small_report(), true).find("# nThread 1 nGpus 1 "), std::string::npos);
  EXPECT_EQ(make_nccl_tests_json(small_report(), {"x", true}).at("config").at("ngpus"), 1);
  EXPECT_EQ(make_nccl_tests_json(small_report(), {"x", false}).at("config").at("ngpus"), 0);
}

TEST(OutputFormatsNcclJson, CheckedCountsAreNumbers) {
  const nlohmann::json document = make_nccl_tests_json(small_report(), {"x"});
  EXPECT_EQ(document.at("results")[0].at("in_place").at("nwrong"), 0.0);
}

TEST(OutputFormatsNcclJson, VersionCodesAndTimes) {
  EXPECT_EQ(nccl_version_code(std::string("2.21.5")), 22105);
  EXPECT_EQ(nccl_version_code(std::string("2.8.4")), 2804);
  EXPECT_EQ(nccl_version_code(std::nullopt), 0);
  EXPECT_EQ(nccl_version_code(std::string("unknown")), 0);
  EXPECT_EQ(nccl_tests_time("2026-12-02T14:40:00Z"), "2026-12-02 14:40:00");
  EXPECT_EQ(command_arguments("ringlab  bench -J x.json"), (std::vector<std::string>{"ringlab", "bench", "-J", "x.json"}));
}

TEST(OutputFormatsCsv, FlattensNestedKeysWithUnderscores) {
  const nlohmann::json row = {{"time_us", {{"p50", 1.5}, {"p50_ci95_low", 1.25}}}, {"rank_skew_us", {{"max", 2}}}, {"converged", true}};
  const auto leaves = flatten_object(row);
  std::vector<std::string> names;
  for (const auto& [name, value] : leaves) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"converged", "rank_skew_us_max", "time_us_p50", "time_us_p50_ci95_low"}));
}

TEST(OutputFormatsCsv, FieldsAreQuotedOnlyWhenNeeded) {
  EXPECT_EQ(csv_field(nlohmann::json(1.5)), "1.5");
  EXPECT_EQ(csv_field(nlohmann::json(true)), "true");
  EXPECT_EQ(csv_field(nlohmann::json(nullptr)), "");
  EXPECT_EQ(csv_field(nlohmann::json("ring")), "ring");
  EXPECT_EQ(csv_field(nlohmann::json("a,b")), "\"a,b\"");
  EXPECT_EQ(csv_field(nlohmann::json("say \"hi\"")), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field(nlohmann::json::array({1, 2})), "\"[1,2]\"");
}

TEST(OutputFormatsCsv, OneRowPerResultEveryStatisticAColumn) {
  nlohmann::json report = small_report();
  report["results"][2]["time_us"]["p50_ci95_low"] = 9.5;  // a statistic only some rows have
  const std::string text = report_csv(report);
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 9U);  // header + 8 results
  EXPECT_EQ(lines[0].rfind("nranks,backend,algorithm,type,redop,size_bytes,count,placement,", 0), 0U) << lines[0];
  EXPECT_NE(lines[0].find(",time_us_p50,"), std::string::npos);
  EXPECT_NE(lines[0].find("time_us_p50_ci95_low"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("2,threads,ring,float32,sum,1024,256,out-of-place,", 0), 0U) << lines[1];
  // Rows without the statistic leave it empty: the same number of fields everywhere.
  const auto fields = [](const std::string& line) { return std::count(line.begin(), line.end(), ','); };
  for (const std::string& line : lines) EXPECT_EQ(fields(line), fields(lines[0]));
}

TEST(OutputFormatsTypeOp, AllMeansEveryTypeAndOpTypesOutermost) {
  const TypeOpList list = parse_type_op_list("all", "all");
  EXPECT_TRUE(list.all_types);
  EXPECT_EQ(list.types.size(), 6U);
  EXPECT_EQ(list.ops.size(), 5U);
  const auto cases = type_op_cases(list);
  ASSERT_EQ(cases.size(), 30U);
  EXPECT_EQ(cases[1], std::make_pair(DataType::float32, ReduceOp::prod));
  EXPECT_EQ(cases[5], std::make_pair(DataType::float64, ReduceOp::sum));
  const TypeOpList one = parse_type_op_list("double", "max");
  EXPECT_EQ(type_op_cases(one), (std::vector<std::pair<DataType, ReduceOp>>{{DataType::float64, ReduceOp::max}}));
}

TEST(OutputFormatsTypeOp, BadNamesNameTheOption) {
  try {
    parse_type_op_list("float8", "sum");
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("-d/--datatype"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("or all"), std::string::npos) << error.what();
  }
  EXPECT_THROW(parse_type_op_list("float32", "mean"), std::invalid_argument);
}

TEST(OutputFormatsTypeOp, MergedReportSaysAllWithTheList) {
  nlohmann::json first = small_report();
  nlohmann::json second = small_report();
  for (nlohmann::json& row : second["results"]) row["type"] = "float64";
  second["complete"] = false;
  const TypeOpList list{{DataType::float32, DataType::float64}, {ReduceOp::sum}, true, false};
  const nlohmann::json merged = merge_type_op_reports({first, second}, list);
  EXPECT_EQ(merged.at("results").size(), 16U);
  EXPECT_EQ(merged.at("results")[8].at("type"), "float64");
  EXPECT_EQ(merged.at("config").at("datatype"), "all");
  EXPECT_EQ(merged.at("config").at("datatypes"), nlohmann::json({"float32", "float64"}));
  EXPECT_EQ(merged.at("config").at("op"), "sum");
  EXPECT_FALSE(merged.at("config").contains("ops"));
  EXPECT_FALSE(merged.at("complete").get<bool>());
  EXPECT_THROW(merge_type_op_reports({}, list), std::invalid_argument);
  // The nccl-tests table keeps each (type, size) as its own line.
  EXPECT_EQ(nccl_tests_tables(merged)[0].lines.size(), 4U);
}

}  // namespace
}  // namespace ringlab::bench
