# Issue 28, part 1: bench statistics that agree with each other (report/statistics.hpp,
# clock_offset.hpp; docs/bench.md#statistics-one-sample-per-call). Included at the end of
# tests/CMakeLists.txt.
target_sources(ringlab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_statistics.cpp)
add_test(NAME unit.bench_statistics COMMAND ringlab_tests
         --gtest_filter=BenchSampleStatistics.*:MedianInterval.*:ConvergeRule.*:BenchRankSkew.*:BenchClockOffset.*)
set_tests_properties(unit.bench_statistics PROPERTIES TIMEOUT 120)

# Real reports, every row checked by tests/check_bench_statistics.py (min <= p50 <= p99 <= max,
# min <= avg <= max, ci_low <= p50 <= ci_high, rank skew min <= p50 <= max) and validate_report.py.
if(SYSTEM_PYTHON3)
  set(statistics_dir ${CMAKE_CURRENT_BINARY_DIR}/statistics-output)
  file(MAKE_DIRECTORY ${statistics_dir})
  set(check_statistics "${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_bench_statistics.py")
  set(validate "${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/validate_report.py")
  # Threads backend, no --converge: converged is null in every row; --ci adds the interval columns.
  add_test(NAME cli.bench_statistics_threads
           COMMAND bash -c "\"$1\" bench --backend threads --ranks 3 -b 8 -e 64K -f 8 -n 20 -w 1 --algo all --ci \
                              --json \"$2\" --force && ${validate} \"$2\" && ${check_statistics} \"$2\" --converged null"
                   _ $<TARGET_FILE:ringlab> ${statistics_dir}/threads.json)
  set_tests_properties(cli.bench_statistics_threads PROPERTIES TIMEOUT 120 PROCESSORS 2
                       PASS_REGULAR_EXPRESSION "p50_oop +ci95_low +ci95_high +p50_inpl +ci95_low +ci95_high.*: ok.*check_bench_statistics: 140 rows ok")
  # A loose rule is met by every row at its first batch; the header says the rule.
  add_test(NAME cli.bench_converge_reached
           COMMAND bash -c "\"$1\" bench --backend threads --ranks 2 -b 1K -e 64K -f 8 -n 20 -w 1 --algo ring \
                              --converge 0.5,5 --json \"$2\" --force && ${validate} \"$2\" && \
                            ${check_statistics} \"$2\" --converged true"
                   _ $<TARGET_FILE:ringlab> ${statistics_dir}/converge-reached.json)
  set_tests_properties(cli.bench_converge_reached PROPERTIES TIMEOUT 120 PROCESSORS 2
                       PASS_REGULAR_EXPRESSION "# converge: .*within [+]-50 % of it, at most 5 s.*check_bench_statistics: 6 rows ok"
                       FAIL_REGULAR_EXPRESSION "# not converged")
  # A rule no timer can meet (an interval within 1e-9 of the median) gives up after 0.05 s a row,
  # with more calls than -n, and the footer names the rows.
  add_test(NAME cli.bench_converge_not_reached
           COMMAND bash -c "\"$1\" bench --backend threads --ranks 2 -b 8 -e 512 -f 8 -n 10 -w 1 --algo ring \
                              --converge 1e-9,0.05 --json \"$2\" --force && ${validate} \"$2\" && \
                            ${check_statistics} \"$2\" --converged false && \
                            ${SYSTEM_PYTHON3} -c 'import json, sys; r = json.load(open(sys.argv[1])); \
                              print(\"more calls than -n:\", all(row[\"iters\"] > 10 for row in r[\"results\"]), \
                                    r[\"config\"][\"converge\"])' \"$2\""
                   _ $<TARGET_FILE:ringlab> ${statistics_dir}/converge-not-reached.json)
  set_tests_properties(cli.bench_converge_not_reached PROPERTIES TIMEOUT 120 PROCESSORS 2
                       PASS_REGULAR_EXPRESSION "# not converged: ring 8 B out-of-place .*calls.*check_bench_statistics: 6 rows ok.*more calls than -n: True {'max_seconds': 0.05, 'rel': 1e-09}")
  # validate_report.py refuses each rule broken on its own (avg outside [min, max], p50 outside its
  # interval, skew out of order, converged against config.converge, ...).
  add_test(NAME plotting.validate_statistics_refusals
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/validate_statistics_refusals.py ${PROJECT_SOURCE_DIR}/plotting)
  set_tests_properties(plotting.validate_statistics_refusals PROPERTIES TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "validate_statistics_refusals: 9 passed, 0 failed")
  if(RINGLAB_ENABLE_MPI)
    # Two processes: clocks aligned by the ping-pong, rank 0 deciding when every rank stops.
    add_test(NAME cli.bench_statistics_mpi
             COMMAND bash -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 \"$1\" bench -b 8 -e 64K -f 8 -n 20 -w 1 \
                                --algo ring,interval_paired,mpi-native --converge 0.05,0.2 --json \"$2\" --force && \
                              ${validate} \"$2\" && ${check_statistics} \"$2\""
                     _ $<TARGET_FILE:ringlab> ${statistics_dir}/mpi-n2.json)
    set_tests_properties(cli.bench_statistics_mpi PROPERTIES TIMEOUT 180 PROCESSORS 2
                         PASS_REGULAR_EXPRESSION ": ok.*check_bench_statistics: 30 rows ok")
  endif()
endif()

# Bad --converge values are refused before any rank starts, naming the part and the range.
foreach(bad IN ITEMS "0|REL .*: 0 is outside \\(0, 1\\)" "1.5|REL .*: 1.5 is outside \\(0, 1\\)"
                     "nan|'nan' is not a finite decimal number" "0.05,0|MAX_SECONDS .*: 0 is outside \\(0, 86400\\] s"
                     "0.05,ten|MAX_SECONDS .*: 'ten' is not a finite" "0.05,1,2|more than two parts")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 value)
  list(GET parts 1 message)
  string(MAKE_C_IDENTIFIER "${value}" test_suffix)
  add_test(NAME cli.bench_converge_bad_${test_suffix}
           COMMAND ${expect_failure} "${message}" $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 -e 64
                   --converge "${value}")
  set_tests_properties(cli.bench_converge_bad_${test_suffix} PROPERTIES TIMEOUT 60)
endforeach()
