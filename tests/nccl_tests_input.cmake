# Issue 32, part 3: nccl-tests' own output in and out (docs/compare.md#nccl-tests-output): compare
# reads all_reduce_perf's text and -J JSON as measured reports and refuses bad ones naming the line,
# leaving no --json file; simulate --emulate nccl prints the all_reduce_perf table, which compare
# reads back. Included at the end of tests/CMakeLists.txt.

target_sources(ringlab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/test_nccl_tests_input.cpp)
add_test(NAME unit.nccl_tests_input COMMAND ringlab_tests --gtest_filter=NcclTestsInput.*)
set_tests_properties(unit.nccl_tests_input PROPERTIES TIMEOUT 60)

set(nccl_data ${CMAKE_CURRENT_SOURCE_DIR}/data/nccl-tests)
set(nccl_out ${CMAKE_CURRENT_BINARY_DIR}/nccl-tests-output)
file(MAKE_DIRECTORY ${nccl_out})

# The reports read from the three good fixtures pass the ringlab.bench/1 validator.
if(SYSTEM_PYTHON3)
  add_test(NAME cli.nccl_tests_reports_validate
           COMMAND bash -c "set -e; rm -f \"$2\"/*.report.json
                            RINGLAB_NCCL_TESTS_DUMP=\"$2\" \"$0\" --gtest_filter=NcclTestsInput.DumpsReportsForTheValidator
                            \"$3\" \"$1\" \"$2\"/allreduce-n4.txt.report.json \"$2\"/allreduce-old-n4.txt.report.json \
                              \"$2\"/allreduce-n4.json.report.json"
                   $<TARGET_FILE:ringlab_tests> ${PROJECT_SOURCE_DIR}/plotting/validate_report.py ${nccl_out} ${SYSTEM_PYTHON3})
  set_tests_properties(cli.nccl_tests_reports_validate PROPERTIES TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "allreduce-n4.txt.report.json: ok\n.*allreduce-old-n4.txt.report.json: ok\n.*allreduce-n4.json.report.json: ok")
endif()

# Good input: the text (with and without the root column) and the JSON, 8 sizes x 2 placements each.
foreach(input allreduce-n4.txt allreduce-old-n4.txt allreduce-n4.json)
  add_test(NAME cli.nccl_tests_compare_${input}
           COMMAND bash -c "rm -f \"$3\" && \"$0\" compare \"$1\" --topology switch:4 --json \"$3\" && test -s \"$3\" &&
                            grep -c '\"report\"' \"$3\""
                   $<TARGET_FILE:ringlab> ${nccl_data}/${input} unused ${nccl_out}/${input}.compare.json)
  set_tests_properties(cli.nccl_tests_compare_${input} PROPERTIES TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "ring +closed-form +6 .*\n16\n")
endforeach()

# Each refusal: exit status 1, the file and line named, no comparison written.
foreach(refusal
  "cut-row.txt;nccl-tests output '[^']*cut-row.txt' line 21: the row has 6 fields where the column titles \\(line 14\\) name 13"
  "no-footer.txt;line 23: the table of line 14 never closes"
  "wrong.txt;line 22: #wrong is 3 in-place"
  "reduce-scatter.txt;line 2: this is reduce_scatter_perf output; ringlab reads all_reduce_perf's only"
  "bad-number.txt;line 19: out-of-place time '18.x4' is not a number"
  "cut.json;nccl-tests JSON '[^']*cut.json': no average_bus_bandwidth after results\\[4\\]")
  list(GET refusal 0 input)
  list(GET refusal 1 regex)
  add_test(NAME cli.nccl_tests_refuses_${input} COMMAND ${expect_failure} "${regex}"
           bash -c "rm -f \"$2\"; \"$0\" compare \"$1\" --topology switch:4 --json \"$2\"; status=$?; \
if [[ -e $2 ]]; then echo \"a comparison was written\"; exit 0; fi; exit $status"
           $<TARGET_FILE:ringlab> ${nccl_data}/${input} ${nccl_out}/${input}.compare.json)
  set_tests_properties(cli.nccl_tests_refuses_${input} PROPERTIES TIMEOUT 60)
endforeach()
add_test(NAME cli.nccl_tests_refuses_unknown_algo COMMAND ${expect_failure} "--nccl-algo rign: no such algorithm; valid: "
         $<TARGET_FILE:ringlab> compare ${nccl_data}/allreduce-n4.txt --topology switch:4 --nccl-algo rign)
set_tests_properties(cli.nccl_tests_refuses_unknown_algo PROPERTIES TIMEOUT 60)

# Round trip: the predicted all_reduce_perf table (-d in nccl-tests' spelling), read back by compare
# on the same topology and model, is within print rounding of the prediction: 0.0 % median error.
add_test(NAME cli.nccl_tests_emulate_round_trip
         COMMAND bash -c "set -e; \"$0\" simulate --emulate nccl --topology switch:4 --ranks 4 -b 8 -e 4M -f 4 -d float \
                            --json \"$1/predicted.json\" --force > \"$1/predicted.txt\"
                          grep -q '^# Collective test starting: all_reduce_perf$' \"$1/predicted.txt\"
                          grep -q '^# Avg bus bandwidth' \"$1/predicted.txt\"
                          grep -q '\"kind\": \"predicted\"' \"$1/predicted.json\"
                          \"$0\" compare \"$1/predicted.txt\" --topology switch:4 --min-bytes 8"
                 $<TARGET_FILE:ringlab> ${nccl_out})
set_tests_properties(cli.nccl_tests_emulate_round_trip PROPERTIES TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "ring +flow-level +20 +0\\.0% +0\\.[0-4]%")
add_test(NAME cli.nccl_tests_emulate_refuses_workload COMMAND ${expect_failure} "--emulate nccl prints the all-reduce sweep"
         $<TARGET_FILE:ringlab> simulate --emulate nccl --topology switch:4 --workload alexnet --device-tflops 10)
set_tests_properties(cli.nccl_tests_emulate_refuses_workload PROPERTIES TIMEOUT 60)

# ringlab bench's own nccl-tests table and -J JSON read back: one table per algorithm ("# Algorithm:
# NAME", experiment_name), N from its "| 2 ranks |" line (text) or config.devices (JSON).
add_test(NAME cli.nccl_tests_reads_bench_output
         COMMAND bash -c "set -e; \"$0\" bench --backend threads --ranks 2 -b 8 -e 8K -f 8 -n 2 -w 1 \
                            --algo ring,interval_paired --format nccl-tests -J \"$1/bench.nccl.json\" --force \
                            > \"$1/bench.txt\"
                          \"$0\" compare \"$1/bench.txt\" --topology switch:2 --min-bytes 8
                          \"$0\" compare \"$1/bench.nccl.json\" --topology switch:2 --min-bytes 8"
                 $<TARGET_FILE:ringlab> ${nccl_out})
set_tests_properties(cli.nccl_tests_reads_bench_output PROPERTIES TIMEOUT 120 PROCESSORS 2
                     PASS_REGULAR_EXPRESSION "interval_paired +flow-level +8 .*ring +flow-level +8 .*interval_paired +flow-level +8 .*ring +flow-level +8 ")

# On several nodes NCCL lays out its rings by node: compare prices nccl-tests output (backend nccl)
# with the topology's ranks per node as the group size, as simulate does, so the round trip of a
# two-node nccl_ring prediction reads back at 0.0 % (with one node of 4 it was 2-3x off).
add_test(NAME cli.nccl_tests_emulate_round_trip_two_nodes
         COMMAND bash -c "set -e; \"$0\" simulate --emulate nccl --topology nvswitch:2,nodes:2 --algo nccl_ring -b 64K -e 64M -f 8 \
                            -d float > \"$1/predicted-two-nodes.txt\"
                          \"$0\" compare \"$1/predicted-two-nodes.txt\" --topology nvswitch:2,nodes:2 --nccl-algo nccl_ring"
                 $<TARGET_FILE:ringlab> ${nccl_out})
set_tests_properties(cli.nccl_tests_emulate_round_trip_two_nodes PROPERTIES TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "nccl_ring +flow-level +[0-9]+ +0\\.0% +0\\.[0-4]%")
