# Issue 31, part 3: `ringlab tune` writes a selection table, `bench --algo auto --tuning FILE` runs
# from it (docs/bench.md, "Tuning"). Included at the end of tests/CMakeLists.txt.

target_sources(ringlab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/test_tuning.cpp)
add_test(NAME unit.tuning COMMAND ringlab_tests --gtest_filter=Tuning.*)
set_tests_properties(unit.tuning PROPERTIES TIMEOUT 60)

set(tuning_dir ${CMAKE_CURRENT_BINARY_DIR}/tuning-output)
file(MAKE_DIRECTORY ${tuning_dir})

# tune on a 4-endpoint host topology for 2..4 ranks, then a threads bench at 3 ranks running auto
# beside ring: the table shows auto:NAME, the report's auto rows name what ran, and compare prices
# them by it.
add_test(NAME cli.tune_then_bench_auto
         COMMAND bash -c "set -e; \"$1\" tune --topology host-shm:4 --ranks 2..4 -b 8 -e 1M -f 16 --json \"$2/t.json\" --force
                          \"$1\" bench --backend threads --ranks 3 -b 8 -e 1M -f 16 -n 2 -w 1 --algo auto,ring \
                            --tuning \"$2/t.json\" --json \"$2/auto.json\" --force | grep -c ' auto:' | sed 's/^/auto lines: /'
                          grep -c '\"auto\": {' \"$2/auto.json\" | sed 's/^/auto rows: /' || true
                          \"$1\" compare \"$2/auto.json\" --topology host-shm:3 --quiet --json \"$2/compare.json\" --force
                          echo compared"
                 _ $<TARGET_FILE:ringlab> ${tuning_dir})
set_tests_properties(cli.tune_then_bench_auto PROPERTIES TIMEOUT 120 PROCESSORS 2
                     PASS_REGULAR_EXPRESSION "auto lines: 5.*auto rows: 10.*compared")
add_test(NAME cli.bench_auto_needs_tuning COMMAND ${expect_failure}
         "--algo auto runs what a tuning table chooses: give --tuning FILE" $<TARGET_FILE:ringlab>
         bench --backend threads --ranks 2 -b 8 -e 8 --algo auto)
add_test(NAME cli.bench_auto_no_rule_for_ranks
         COMMAND bash -c "\"$1\" tune --topology host-shm:4 --ranks 2 -b 8 -e 64 --json \"$2/two.json\" --force --quiet &&
                          \"$1\" bench --backend threads --ranks 3 -b 8 -e 8 -n 1 -w 0 --algo auto --tuning \"$2/two.json\"; echo exit=$?"
                 _ $<TARGET_FILE:ringlab> ${tuning_dir})
set_tests_properties(cli.bench_auto_no_rule_for_ranks PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION
                     "no allreduce rule for 3 ranks \\(it has 2\\).*exit=[1-9]")
add_test(NAME cli.tune_too_many_ranks COMMAND ${expect_failure} "9 ranks do not fit topology" $<TARGET_FILE:ringlab>
         tune --topology switch:8 --ranks 9)

if(SYSTEM_PYTHON3)
  # plotting/tune_check.py on the committed mpi N = 2 sweep: its ratios, and exit status 3 (a goal
  # not met) rather than a crash.
  add_test(NAME plotting.tune_check
           COMMAND bash -c "\"$1\" \"$2\" \"$3\" --out \"$4\"; echo exit=$?"
                   _ ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tune_check.py
                   ${PROJECT_SOURCE_DIR}/results/tune/2026-12-07/bench-mpi-n2.json ${tuning_dir})
  set_tests_properties(plotting.tune_check PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION
                       "\\| 2 \\| mpi \\| 24 \\| 1\\.112 \\| 21 % \\| 1\\.630 .*NOT met.*exit=3")
endif()
