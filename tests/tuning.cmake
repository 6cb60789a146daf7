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

# tune --mpich-json: unit tests above for the tree's shape; here MPICH itself reads the file.
# tests/mpich_selection_check.cpp calls every collective MPICH selects through its tree (MPICH
# aborts on one without a rule or on an unknown algorithm name) and checks all-reduce results,
# under files tuned to each of MPICH's three all-reduce algorithms, at 2 and 3 ranks. A copy with
# one algorithm name misspelt must make MPICH abort: the file is read, not ignored.
if(RINGLAB_ENABLE_MPI)
  add_executable(ringlab_mpich_selection_check mpich_selection_check.cpp)
  target_link_libraries(ringlab_mpich_selection_check PRIVATE MPI::MPI_CXX ringlab_warnings)
  add_test(NAME mpi.mpich_selection_file
           COMMAND bash -c "set -e
                            for algo in ring recursive_doubling halving_doubling; do
                              \"$1\" tune --topology switch:4 --ranks 2..4 -b 8 -e 64M -f 8 --algo $algo --mpich-json \"$2/mpich-$algo.json\" --force --quiet
                              for n in 2 3; do
                                MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=\"$2/mpich-$algo.json\" MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir \
                                  \"$3\" -n $n \"$4\" | sed \"s/^/$algo n=$n: /\"
                              done
                            done
                            sed 's/MPIR_Bcast_intra_binomial/MPIR_Bcast_intra_misspelt/' \"$2/mpich-ring.json\" > \"$2/mpich-misspelt.json\"
                            if MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=\"$2/mpich-misspelt.json\" \"$3\" -n 2 \"$4\" > /dev/null 2>&1
                            then echo 'misspelt file accepted'; else echo 'misspelt file refused by MPICH'; fi"
                   _ $<TARGET_FILE:ringlab> ${tuning_dir} ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:ringlab_mpich_selection_check>)
  set_tests_properties(mpi.mpich_selection_file PROPERTIES TIMEOUT 180 PROCESSORS 2 PASS_REGULAR_EXPRESSION
                       "ring n=2: mpich selection check: OK\nring n=3: mpich selection check: OK\nrecursive_doubling n=2: mpich selection check: OK\nrecursive_doubling n=3: mpich selection check: OK\nhalving_doubling n=2: mpich selection check: OK\nhalving_doubling n=3: mpich selection check: OK\nmisspelt file refused by MPICH")
endif()
add_test(NAME cli.tune_mpich_json_refuses_swing COMMAND ${expect_failure}
         "--mpich-json: MPICH has no all-reduce for 'swing'" $<TARGET_FILE:ringlab>
         tune --topology switch:4 --algo ring,swing --mpich-json ${tuning_dir}/refused.json --force)

# Two outputs on one file are refused before any work, however the path is spelt (new.json does
# not exist: refused before anything is written).
add_test(NAME cli.tune_outputs_on_one_file COMMAND ${expect_failure}
         "--json and --mpich-json both name './new.json'; give two files" $<TARGET_FILE:ringlab>
         tune --topology switch:4 --json new.json --mpich-json ./new.json --force)
add_test(NAME cli.replay_outputs_on_one_file COMMAND ${expect_failure}
         "--json and --save-profile both name 'p.json'; give two files" $<TARGET_FILE:ringlab>
         replay --workload alexnet --backend threads --ranks 2 --iterations 1 --device-tflops 10 --json p.json --save-profile p.json --force)
set_tests_properties(cli.tune_outputs_on_one_file cli.replay_outputs_on_one_file PROPERTIES
                     WORKING_DIRECTORY ${tuning_dir} TIMEOUT 30)

# train and replay run --algo auto from a table too (dp mode): each all-reduce size says what ran,
# on standard output and in the report; hybrid mode refuses auto (it also needs RS and AG).
add_test(NAME cli.train_replay_auto
         COMMAND bash -c "set -e; \"$1\" tune --topology host-shm:2 --ranks 2 -b 1K -e 256M -f 4 --json \"$2/t2.json\" --force --quiet
                          \"$1\" train --mode dp --backend threads --ranks 2 --synthetic 64 --steps 2 --algo auto --tuning \"$2/t2.json\" \
                            --bucket-bytes 1M --json \"$2/train-auto.json\" --force | grep -c '^# auto: all-reduce of' | sed 's/^/train auto lines: /'
                          grep -c '\"segment_bytes\"' \"$2/train-auto.json\" | sed 's/^/train report choices: /'
                          \"$1\" replay --workload alexnet --backend threads --ranks 2 --iterations 2 --device-tflops 10 --mode both \
                            --algo auto --tuning \"$2/t2.json\" --json \"$2/replay-auto.json\" --force | grep -c '^# auto: all-reduce of' | sed 's/^/replay auto lines: /'
                          grep -c 'auto chooses the all-reduce only' \"$2/replay-auto.json\" | sed 's/^/replay hybrid refused: /'"
                 _ $<TARGET_FILE:ringlab> ${tuning_dir})
set_tests_properties(cli.train_replay_auto PROPERTIES TIMEOUT 180 PROCESSORS 2 PASS_REGULAR_EXPRESSION
                     "train auto lines: 7\ntrain report choices: 7\nreplay auto lines: 5\nreplay hybrid refused: 1")
add_test(NAME cli.train_auto_needs_tuning COMMAND ${expect_failure}
         "--algo auto runs what a tuning table chooses: give --tuning FILE" $<TARGET_FILE:ringlab>
         train --mode dp --backend threads --ranks 2 --synthetic 8 --steps 1 --algo auto)
add_test(NAME cli.replay_tuning_needs_auto COMMAND ${expect_failure}
         "--tuning FILE is read for --algo auto" $<TARGET_FILE:ringlab>
         replay --workload alexnet --ranks 2 --device-tflops 10 --algo ring --tuning ${tuning_dir}/t2.json)
