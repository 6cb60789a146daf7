// The shared checks of values from outside (issue 27, section 3): io/checked_number,
// io/json_input, io/printable, and their use by the topology, calibration record, bench report
// and RINGLAB_FAULT readers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "calibration/calibration_record.hpp"
#include "io/checked_number.hpp"
#include "simulator/compare.hpp"
#include "collectives/fault_injection.hpp"
#include "io/json_input.hpp"
#include "io/printable.hpp"
#include "topology/topology_io.hpp"

namespace {

using ringlab::io::NumberRange;

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no error)";
}

std::string temporary_file(const std::string& name, const std::string& content) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("ringlab-values-" + name);
  std::ofstream(path) << content;
  return path.string();
}

TEST(CheckedNumber, RefusesNonFiniteAndOutOfRangeValuesNamingWhereAndTheRange) {
  const NumberRange bandwidth{1e3, 1e15, "B/s"};
  EXPECT_EQ(ringlab::io::check_number(25e9, "x", bandwidth), 25e9);
  EXPECT_EQ(message_of([&] { ringlab::io::check_number(1e-300, "t.json: links[3].bandwidth", bandwidth); }),
            "t.json: links[3].bandwidth: 1e-300 is outside [1000, 1e+15] B/s");
  EXPECT_EQ(message_of([&] { ringlab::io::check_number(std::nan(""), "--x", bandwidth); }),
            "--x: nan is not a finite number; expected a number in [1000, 1e+15] B/s");
  EXPECT_THROW(ringlab::io::check_number(std::numeric_limits<double>::infinity(), "--x", bandwidth), std::invalid_argument);
  const NumberRange open{0, 1, "", true, true};
  EXPECT_THROW(ringlab::io::check_number(0, "--x", open), std::invalid_argument);
  EXPECT_THROW(ringlab::io::check_number(1, "--x", open), std::invalid_argument);
  EXPECT_EQ(ringlab::io::check_number(0.5, "--x", open), 0.5);
  EXPECT_EQ(ringlab::io::describe(open), "(0, 1)");
}

TEST(CheckedNumber, ParsesOnlyWholeFiniteDecimalText) {
  const NumberRange seconds{0, 3600, "s", true};
  EXPECT_EQ(ringlab::io::parse_checked_number("0.005", "--min-time", seconds), 0.005);
  EXPECT_EQ(ringlab::io::parse_checked_number("2e1", "--min-time", seconds), 20);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "", " 1", "1 ", "1x", "0x10", "1e999"})
    EXPECT_THROW(ringlab::io::parse_checked_number(bad, "--min-time", seconds), std::invalid_argument) << bad;
  EXPECT_EQ(message_of([&] { ringlab::io::parse_checked_number("nan", "--min-time", seconds); }),
            "--min-time: 'nan' is not a finite decimal number; expected a number in (0, 3600] s");
  EXPECT_EQ(message_of([&] { ringlab::io::parse_checked_number("0", "--min-time", seconds); }),
            "--min-time: 0 is outside (0, 3600] s");
}

TEST(CheckedNumber, IntegersAreCheckedBeforeNarrowing) {
  const auto integer = [](const char* text) {
    return ringlab::io::check_json_integer(nlohmann::json::parse(text), "endpoints", 1, 1 << 20);
  };
  EXPECT_EQ(integer("2"), 2);
  EXPECT_EQ(message_of([&] { integer("4294967298"); }), "endpoints: 4294967298 is outside [1, 1048576]");
  EXPECT_THROW(integer("18446744073709551615"), std::invalid_argument);
  EXPECT_THROW(integer("0"), std::invalid_argument);
  EXPECT_THROW(integer("-1"), std::invalid_argument);
  EXPECT_THROW(integer("2.5"), std::invalid_argument);
  EXPECT_THROW(integer("\"2\""), std::invalid_argument);
}

TEST(Printable, EscapesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(ringlab::io::printable("node\x1b[2J"), "node\\u001b[2J");
  EXPECT_EQ(ringlab::io::printable("a\nb\tc\x7f"), "a\\u000ab\\u0009c\\u007f");
  EXPECT_EQ(ringlab::io::printable("a\nb", true), "a\nb");
  EXPECT_EQ(ringlab::io::printable("caf\xc3\xa9 \xe2\x86\x92"), "caf\xc3\xa9 \xe2\x86\x92");  // valid UTF-8 kept
  EXPECT_EQ(ringlab::io::printable("\xc2\x9b"), "\\u009b");                                  // C1 CSI
  EXPECT_EQ(ringlab::io::printable("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(ringlab::io::printable("\xc0\xaf"), "\\xc0\\xaf");  // overlong '/'
}

TEST(JsonInput, RefusesTrailingTextFileKindsAndOverflowNamingTheFile) {
  const std::string whole = temporary_file("whole.json", "{\"a\": 1}\n");
  EXPECT_EQ(ringlab::io::read_json_input(whole, "test file").at("a"), 1);
  const std::string trailing = temporary_file("trailing.json", "{\"a\": 1}\n{\"b\": 2}\n");
  EXPECT_NE(message_of([&] { ringlab::io::read_json_input(trailing, "test file"); })
                .find("is not valid JSON: at line 2, column 1"),
            std::string::npos);
  const std::string overflow = temporary_file("overflow.json", "{\"a\": 1e999}");
  EXPECT_NE(message_of([&] { ringlab::io::read_json_input(overflow, "test file"); })
                .find("overflow.json' is not usable JSON: number overflow parsing '1e999'"),
            std::string::npos);
  EXPECT_NE(message_of([] { ringlab::io::read_json_input("/tmp", "test file"); }).find("'/tmp' is a directory"),
            std::string::npos);
  EXPECT_NE(message_of([] { ringlab::io::read_json_input("/dev/zero", "test file"); }).find("is a device"),
            std::string::npos);
  EXPECT_NE(message_of([] { ringlab::io::read_json_input("/nonexistent/x.json", "test file"); }).find("does not exist"),
            std::string::npos);
}

TEST(CheckedValues, TopologyFieldsOutsideTheirPhysicalRangesAreRefused) {
  const auto topology = [](const std::string& link) {
    return nlohmann::json::parse(R"({"schema": "ringlab.topology/1", "nodes": [{"kind": "endpoint"}, {"kind": "endpoint"}],
                                     "links": [)" + link + "]}");
  };
  EXPECT_NO_THROW(ringlab::topology_from_json(topology(R"({"a": 0, "b": 1, "bandwidth": 25e9, "latency": 1e-6})")));
  EXPECT_EQ(message_of([&] { ringlab::topology_from_json(topology(R"({"a": 0, "b": 1, "bandwidth": 1e-300, "latency": 0})")); }),
            "topology JSON: links[0].bandwidth: 1e-300 is outside [1000, 1e+15] B/s");
  EXPECT_THROW(ringlab::topology_from_json(topology(R"({"a": 0, "b": 1, "bandwidth": 1e20, "latency": 0})")),
               std::invalid_argument);
  EXPECT_THROW(ringlab::topology_from_json(topology(R"({"a": 0, "b": 1, "bandwidth": 1e9, "latency": 1e6})")),
               std::invalid_argument);
  nlohmann::json document = topology(R"({"a": 0, "b": 1, "bandwidth": 25e9, "latency": 1e-6})");
  document["receive_fragment_bytes"] = nlohmann::json::parse("18446744073709551615");
  EXPECT_THROW(ringlab::topology_from_json(document), std::invalid_argument);
  document.erase("receive_fragment_bytes");
  document["gamma_seconds_per_byte"] = 1.0;
  EXPECT_EQ(message_of([&] { ringlab::topology_from_json(document); }),
            "topology JSON: gamma_seconds_per_byte: 1 is outside [0, 0.001] s/B");
  document["gamma_seconds_per_byte"] = 1e-10;
  document["nodes"][0]["name"] = "\x1b[2J";
  EXPECT_EQ(ringlab::topology_from_json(document).node(0).name, "\\u001b[2J");
}

TEST(CheckedValues, FaultSpecRefusesDuplicateKeysNonFiniteSecondsAndRanksOutsideTheJob) {
  EXPECT_NE(message_of([] { ringlab::parse_fault_spec("rank=0,step=0,action=stall,action=exit"); })
                .find("'action' is given twice"),
            std::string::npos);
  EXPECT_THROW(ringlab::parse_fault_spec("rank=0,step=0,action=stall,seconds=nan"), std::invalid_argument);
  EXPECT_THROW(ringlab::parse_fault_spec("rank=0,step=0,action=stall,seconds=inf"), std::invalid_argument);
  EXPECT_EQ(ringlab::parse_fault_spec("rank=0,step=0,action=stall,seconds=0.5").stall_seconds, 0.5);
  const ringlab::FaultSpec spec = ringlab::parse_fault_spec("rank=7,step=0,action=stall");
  EXPECT_NO_THROW(ringlab::check_fault_rank(spec, 8));
  EXPECT_EQ(message_of([&] { ringlab::check_fault_rank(spec, 2); }),
            "RINGLAB_FAULT: rank=7 is not a rank of this job, which has 2 rank(s) (0..1)");
}

TEST(CheckedValues, CalibrationRecordFieldsAreRangeChecked) {
  const nlohmann::json valid = ringlab::io::read_json_input(RINGLAB_SOURCE_DIR "/tests/values/calibration_ok.json",
                                                            "test file")
                                   .at("calibration");
  EXPECT_NO_THROW(ringlab::calibration::measurements_from_record(valid));
  nlohmann::json record = valid;
  record["endpoints"] = nlohmann::json::parse("4294967298");
  EXPECT_EQ(message_of([&] { ringlab::calibration::measurements_from_record(record); }),
            "calibration record: endpoints: 4294967298 is outside [1, 1048576]");
  record = valid;
  record["ping_pong"]["pairs"][0]["ranks"] = {1, 1};
  EXPECT_THROW(ringlab::calibration::measurements_from_record(record), std::invalid_argument);
  record = valid;
  record["ping_pong"]["pairs"][0]["samples"][0]["one_way_median_us"] = 1e300;
  EXPECT_THROW(ringlab::calibration::measurements_from_record(record), std::invalid_argument);
  record = valid;
  record["reduce"]["samples"][0]["iterations"] = nlohmann::json::parse("4294967297");
  EXPECT_THROW(ringlab::calibration::measurements_from_record(record), std::invalid_argument);
}

TEST(CheckedValues, BenchReportFieldsAreRangeChecked) {
  EXPECT_NO_THROW(ringlab::simulator::read_measured_report(RINGLAB_SOURCE_DIR "/tests/values/bench_ok.json"));
  EXPECT_NE(message_of([] {
              ringlab::simulator::read_measured_report(RINGLAB_SOURCE_DIR "/tests/values/bench_nranks_2p32.json");
            }).find("config.nranks: 4294967298 is outside [1, 1048576]"),
            std::string::npos);
  const ringlab::simulator::MeasuredReport escaped =
      ringlab::simulator::read_measured_report(RINGLAB_SOURCE_DIR "/tests/values/bench_escape_algorithm.json");
  EXPECT_EQ(escaped.rows.at(0).algorithm, "\\u001b[2Jring");
}

}  // namespace
