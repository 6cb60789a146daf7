# Issue 28, part 3a: output that existing tools read (docs/bench.md#output-formats): bench's
# --format nccl-tests table, -J (nccl-tests' JSON), --csv, -d all / -o all, and -c meaning "check"
# in allreduce as in bench. Included at the end of tests/CMakeLists.txt.

# The pure formatting functions (tests/test_output_formats.cpp).
target_sources(ringlab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/test_output_formats.cpp)
add_test(NAME unit.output_formats COMMAND ringlab_tests --gtest_filter=OutputFormats*)
set_tests_properties(unit.output_formats PROPERTIES TIMEOUT 60)

set(formats_dir ${CMAKE_CURRENT_BINARY_DIR}/formats-output)
file(MAKE_DIRECTORY ${formats_dir})
set(check_formats ${CMAKE_CURRENT_SOURCE_DIR}/check_nccl_tests_output.py)

if(SYSTEM_PYTHON3)
  # Threads backend, 3 ranks, 5 sizes (8 B .. 32 KiB by 8), 2 algorithms: the table read the way
  # nccl-tests' parsers read it, -J's fields, and the CSV's 2 x 5 x 2 rows.
  add_test(NAME cli.bench_nccl_tests_format_threads
           COMMAND bash -c "set -e; \"$1\" bench --backend threads --ranks 3 -b 8 -e 32K -f 8 -n 2 -w 1 \
                              --algo ring,interval_paired --format nccl-tests -J \"$2/threads.nccl.json\" \
                              --csv \"$2/threads.csv\" --force > \"$2/threads.txt\"
                            \"$3\" \"$4\" text \"$2/threads.txt\" --algorithms ring,interval_paired --lines 5
                            \"$3\" \"$4\" json \"$2/threads.nccl.json\" --algorithms ring,interval_paired --lines 5
                            \"$3\" \"$4\" csv \"$2/threads.csv\" --rows 20"
                   _ $<TARGET_FILE:ringlab> ${formats_dir} ${SYSTEM_PYTHON3} ${check_formats})
  set_tests_properties(cli.bench_nccl_tests_format_threads PROPERTIES TIMEOUT 120 PROCESSORS 2
                       PASS_REGULAR_EXPRESSION "OK text .*2 tables of 5 lines.*OK json .*10 results.*OK csv .*20 rows")

  # -d all -o all: every (type, op) in turn, 6 x 5 = 30 sweeps of 2 sizes for one algorithm; the
  # report says "all" with the lists and passes validate_report.py; the table has 2 x 30 lines.
  add_test(NAME cli.bench_all_types_all_ops
           COMMAND bash -c "set -e; \"$1\" bench --backend threads --ranks 2 -b 64 -e 256 -f 4 -n 1 -w 0 --algo ring \
                              -d all -o all --format nccl-tests --json \"$2/all.json\" --csv \"$2/all.csv\" --force \
                              > \"$2/all.txt\"
                            \"$3\" \"$4\" text \"$2/all.txt\" --algorithms ring --lines 60
                            \"$3\" \"$4\" csv \"$2/all.csv\" --rows 120
                            \"$3\" \"$4\" report \"$2/all.json\" --types 6 --ops 5
                            \"$3\" \"$5\" \"$2/all.json\""
                   _ $<TARGET_FILE:ringlab> ${formats_dir} ${SYSTEM_PYTHON3} ${check_formats}
                     ${PROJECT_SOURCE_DIR}/plotting/validate_report.py)
  set_tests_properties(cli.bench_all_types_all_ops PROPERTIES TIMEOUT 180 PROCESSORS 2 FIXTURES_SETUP all_types_report
                       PASS_REGULAR_EXPRESSION "OK text .*1 tables of 60 lines.*OK csv .*120 rows.*OK report .*30 .type, op. pairs, 120 rows.*all.json: ok")

  # -J - : standard output carries nccl-tests' JSON alone (the table goes to standard error).
  add_test(NAME cli.bench_nccl_json_stdout
           COMMAND bash -c "\"$1\" bench --backend threads --ranks 2 -b 8 -e 8 -n 1 -w 0 --algo ring -J - 2>/dev/null |
                            \"$2\" -c 'import json, sys; d = json.load(sys.stdin); print(\"stdout:\", d[\"version\"], len(d[\"results\"]))'"
                   _ $<TARGET_FILE:ringlab> ${SYSTEM_PYTHON3})
  set_tests_properties(cli.bench_nccl_json_stdout PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "stdout: 3 1")

  if(RINGLAB_ENABLE_MPI)
    # The same table from 2 MPI processes, with MPI_Allreduce as a second table.
    add_test(NAME cli.bench_nccl_tests_format_mpi
             COMMAND bash -c "set -e; \"$1\" ${MPIEXEC_NUMPROC_FLAG} 2 \"$2\" bench -b 1K -e 64K -f 4 -n 2 -w 1 \
                                --algo ring,mpi-native --format nccl-tests -J \"$3/mpi.nccl.json\" --csv \"$3/mpi.csv\" \
                                --force > \"$3/mpi.txt\"
                              \"$4\" \"$5\" text \"$3/mpi.txt\" --algorithms ring,mpi-native --lines 4
                              \"$4\" \"$5\" json \"$3/mpi.nccl.json\" --algorithms ring,mpi-native --lines 4
                              \"$4\" \"$5\" csv \"$3/mpi.csv\" --rows 16"
                     _ ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:ringlab> ${formats_dir} ${SYSTEM_PYTHON3} ${check_formats})
    set_tests_properties(cli.bench_nccl_tests_format_mpi PROPERTIES TIMEOUT 120 PROCESSORS 2
                         PASS_REGULAR_EXPRESSION "OK text .*2 tables of 4 lines.*OK json .*8 results.*OK csv .*16 rows")
  endif()
endif()

# compare prices one type: a -d all report is refused, saying what to do.
add_test(NAME cli.compare_refuses_all_types COMMAND ${expect_failure}
         "config.datatype is \"all\" \\(ringlab bench -d all\\): compare takes a report of one type and one op"
         $<TARGET_FILE:ringlab> compare ${formats_dir}/all.json --topology ${CMAKE_CURRENT_SOURCE_DIR}/topology/with_gamma.json)
set_tests_properties(cli.compare_refuses_all_types PROPERTIES TIMEOUT 30 FIXTURES_REQUIRED all_types_report)

# Bad input: two outputs on standard output, -d all where one type is priced, an unknown format.
add_test(NAME cli.bench_two_outputs_on_stdout COMMAND ${expect_failure}
         "-J/--nccl-json and --csv all name standard output"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 -b 8 -e 8 -n 1 -J - --csv -)
add_test(NAME cli.simulate_refuses_all_types COMMAND ${expect_failure}
         "-d all .every type in turn. is a `ringlab bench` option; give one type here"
         $<TARGET_FILE:ringlab> simulate --topology host-shm:4 -d all)
add_test(NAME cli.bench_unknown_format COMMAND ${expect_failure} "--format: .*nccl-tests"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 --format nccl)
set_tests_properties(cli.bench_two_outputs_on_stdout cli.simulate_refuses_all_types cli.bench_unknown_format
                     PROPERTIES TIMEOUT 30)

# allreduce: -c/--check is check (0/1) as in bench and nccl-tests; the element count is --count.
add_test(NAME cli.allreduce_check_is_not_count COMMAND ${expect_failure}
         "-c/--check takes 0 or 1 .check the result or not., not '1M'; give the element count as --count 1M"
         $<TARGET_FILE:ringlab> allreduce --backend threads --ranks 2 -c 1M)
add_test(NAME cli.allreduce_unchecked
         COMMAND ringlab allreduce --backend threads --ranks 2 --count 1000 -c 0 -n 1 --algo ring)
set_tests_properties(cli.allreduce_check_is_not_count cli.allreduce_unchecked PROPERTIES TIMEOUT 30)
set_tests_properties(cli.allreduce_unchecked PROPERTIES
                     PASS_REGULAR_EXPRESSION "ring +[0-9.]+ +[0-9.]+ +[0-9.]+ +N/A\n# results not checked \\(-c 0\\)")
