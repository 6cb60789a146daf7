# Perfetto traces (issue 28, docs/bench.md#trace-files, docs/simulator.md#trace-file): simulated
# and measured (bench on threads and mpiexec -n 2, allreduce) traces checked against
# trace_event.schema.json and the structure rules by check_trace.py; a measured and a simulated
# trace of the same run have the same ranks, steps and span nesting; with -d all -o all every call
# has a name of its own (type and op in it); broken traces are refused.
set(trace_dir ${CMAKE_CURRENT_BINARY_DIR}/trace-output)
file(MAKE_DIRECTORY ${trace_dir})
set(check_trace ${CMAKE_CURRENT_SOURCE_DIR}/check_trace.py)

add_test(NAME trace.simulate_ring4 COMMAND ringlab simulate --topology ring:4 --algo ring -b 1M -e 1M
                                           --trace ${trace_dir}/simulated-ring4.json --force)
add_test(NAME trace.simulate_ring2 COMMAND ringlab simulate --topology ring:2 --algo ring -b 1M -e 1M
                                           --trace ${trace_dir}/simulated-ring2.json --force)
add_test(NAME trace.simulate_interval_paired4 COMMAND ringlab simulate --topology switch:4 --algo interval_paired
                                                      -b 64K -e 64K --trace ${trace_dir}/simulated-interval_paired4.json --force)
add_test(NAME trace.bench_threads COMMAND ringlab bench --backend threads --ranks 4 -b 64K -e 1M -f 16 -n 2 -w 1
                                          --algo ring,interval_paired --trace ${trace_dir}/bench-threads4.json --force)
add_test(NAME trace.allreduce_threads COMMAND ringlab allreduce --backend threads --ranks 3 --count 100003 -n 1
                                              --algo all --trace ${trace_dir}/allreduce-threads3.json --force)
# -d all -o all: 6 types x 5 ops x 2 placements = 60 traced calls per rank, each named with its type and op.
add_test(NAME trace.bench_threads_all_types COMMAND ringlab bench --backend threads --ranks 2 -b 64 -e 64 -n 1 -w 0
                                                    --algo ring -d all -o all --trace ${trace_dir}/bench-threads2-all.json --force)
set_tests_properties(trace.simulate_ring4 trace.simulate_ring2 trace.simulate_interval_paired4 trace.bench_threads trace.allreduce_threads
                     trace.bench_threads_all_types
                     PROPERTIES TIMEOUT 120 FIXTURES_SETUP trace_files PASS_REGULAR_EXPRESSION "# trace written to")
set(trace_files ${trace_dir}/simulated-ring4.json ${trace_dir}/simulated-ring2.json ${trace_dir}/simulated-interval_paired4.json ${trace_dir}/bench-threads4.json
                ${trace_dir}/allreduce-threads3.json ${trace_dir}/bench-threads2-all.json)
if(RINGLAB_ENABLE_MPI)
  add_test(NAME trace.bench_mpi2
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> bench -b 1M -e 1M -n 2 -w 1
                   --algo ring,mpi-native --trace ${trace_dir}/bench-mpi2.json --force)
  add_test(NAME trace.allreduce_mpi2
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> allreduce --count 65536 -n 1
                   --algo ring,halving_doubling,mpi-native --trace ${trace_dir}/allreduce-mpi2.json --force)
  set_tests_properties(trace.bench_mpi2 trace.allreduce_mpi2 PROPERTIES TIMEOUT 120 FIXTURES_SETUP trace_files
                       PROCESSORS 2 PASS_REGULAR_EXPRESSION "# trace written to")
  list(APPEND trace_files ${trace_dir}/bench-mpi2.json ${trace_dir}/allreduce-mpi2.json)
endif()

add_test(NAME trace.refuses_existing_file COMMAND ${expect_failure} "--trace.*exists.*--force"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 -b 8 -e 8 -n 1 -w 0 --algo ring
         --trace ${CMAKE_CURRENT_SOURCE_DIR}/trace_event.schema.json)
set_tests_properties(trace.refuses_existing_file PROPERTIES TIMEOUT 30)

if(SYSTEM_PYTHON3)
  add_test(NAME trace.valid COMMAND ${SYSTEM_PYTHON3} ${check_trace} valid ${trace_files})
  add_test(NAME trace.same_run_threads COMMAND ${SYSTEM_PYTHON3} ${check_trace} same-run
           ${trace_dir}/bench-threads4.json ${trace_dir}/simulated-ring4.json)
  add_test(NAME trace.same_run_interval_paired COMMAND ${SYSTEM_PYTHON3} ${check_trace} same-run
           ${trace_dir}/bench-threads4.json ${trace_dir}/simulated-interval_paired4.json)
  set_tests_properties(trace.same_run_interval_paired PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED trace_files
                       PASS_REGULAR_EXPRESSION "same run ok: 'interval_paired 65536 B out-of-place'")
  # Every call of the -d all -o all trace has a name of its own; the one-type trace keeps the short names.
  add_test(NAME trace.distinct_calls_all_types COMMAND ${SYSTEM_PYTHON3} ${check_trace} distinct-calls
           ${trace_dir}/bench-threads2-all.json)
  set_tests_properties(trace.distinct_calls_all_types PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED trace_files
                       PASS_REGULAR_EXPRESSION "distinct calls ok: 60 calls per rank, first 'ring 64 B out-of-place float32 sum'")
  add_test(NAME trace.distinct_calls_one_type COMMAND ${SYSTEM_PYTHON3} ${check_trace} distinct-calls
           ${trace_dir}/bench-threads4.json)
  set_tests_properties(trace.distinct_calls_one_type PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED trace_files
                       PASS_REGULAR_EXPRESSION "distinct calls ok: [0-9]+ calls per rank, first 'ring 65536 B out-of-place'")
  add_test(NAME trace.same_run_other_ranks COMMAND ${expect_failure} "measured ranks \\[0, 1, 2, 3\\] but simulated ranks \\[0, 1\\]"
           ${SYSTEM_PYTHON3} ${check_trace} same-run ${trace_dir}/bench-threads4.json ${trace_dir}/simulated-ring2.json)
  set_tests_properties(trace.valid trace.same_run_threads trace.same_run_other_ranks
                       PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED trace_files)
  set_tests_properties(trace.valid PROPERTIES PASS_REGULAR_EXPRESSION "trace ok")
  set_tests_properties(trace.same_run_threads PROPERTIES PASS_REGULAR_EXPRESSION "same run ok: 'ring 1048576 B out-of-place'")
  if(RINGLAB_ENABLE_MPI)
    add_test(NAME trace.same_run_mpi2 COMMAND ${SYSTEM_PYTHON3} ${check_trace} same-run
             ${trace_dir}/bench-mpi2.json ${trace_dir}/simulated-ring2.json)
    set_tests_properties(trace.same_run_mpi2 PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED trace_files
                         PASS_REGULAR_EXPRESSION "same run ok: 'ring 1048576 B out-of-place'")
  endif()
  foreach(bad unbalanced:never\ ended string_counter:schema\ error crossed_spans:without\ nesting)
    string(REPLACE ":" ";" parts "${bad}")
    list(GET parts 0 fixture)
    list(GET parts 1 message)
    add_test(NAME trace.refuses_${fixture} COMMAND ${expect_failure} "${message}"
             ${SYSTEM_PYTHON3} ${check_trace} valid ${CMAKE_CURRENT_SOURCE_DIR}/trace_fixtures/${fixture}.json)
    set_tests_properties(trace.refuses_${fixture} PROPERTIES TIMEOUT 30)
  endforeach()
endif()

add_test(NAME trace.allreduce_refuses_standard_output COMMAND ${expect_failure} "--trace -: allreduce prints its table"
         $<TARGET_FILE:ringlab> allreduce --backend threads --ranks 2 --count 8 --trace -)
set_tests_properties(trace.allreduce_refuses_standard_output PROPERTIES TIMEOUT 30)
