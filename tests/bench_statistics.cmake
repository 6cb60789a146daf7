# Issue 28, part 1: bench statistics that agree with each other (bench/src/statistics.hpp,
# clock_offset.hpp; docs/bench.md#statistics). Included at the end of tests/CMakeLists.txt.
target_sources(ringlab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_statistics.cpp)
add_test(NAME unit.bench_statistics COMMAND ringlab_tests
         --gtest_filter=BenchSampleStatistics.*:MedianInterval.*:ConvergeRule.*:BenchRankSkew.*:BenchClockOffset.*)
set_tests_properties(unit.bench_statistics PROPERTIES TIMEOUT 120)
