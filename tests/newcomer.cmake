# Issue 28, part 4: a newcomer path that works. Included at the end of tests/CMakeLists.txt.
#
# An error of a multi-rank job is printed once (cli/main.cpp, cli/launch.cpp; docs/launching.md):
# one met alike by every rank before the ranks start by rank 0 alone, one met by a rank while the
# job runs by that rank, and main does not repeat it. Every rank still exits non-zero: under
# mpiexec each rank reports its own status ("exit S"), and both must say 2.
set(count_error_lines ${CMAKE_CURRENT_SOURCE_DIR}/count_error_lines.sh)
set(unknown_algorithm_line "unknown name 'nosuch'; valid: parameter_server")
if(RINGLAB_ENABLE_MPI)
  set(each_rank_status ${CMAKE_CURRENT_SOURCE_DIR}/report_exit_status.sh)
  foreach(command bench allreduce)
    add_test(NAME cli.error_once_mpi_${command}_option
             COMMAND ${count_error_lines} 1 "${unknown_algorithm_line}"
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> ${command} --algo nosuch)
    set_tests_properties(cli.error_once_mpi_${command}_option PROPERTIES TIMEOUT 60 PROCESSORS 2)
    add_test(NAME cli.error_once_mpi_${command}_every_rank_fails
             COMMAND ${count_error_lines} 2 "^exit 2$" ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
                     ${each_rank_status} $<TARGET_FILE:ringlab> ${command} --algo nosuch)
    set_tests_properties(cli.error_once_mpi_${command}_every_rank_fails PROPERTIES TIMEOUT 60 PROCESSORS 2)
  endforeach()
  # CLI11's own parse errors (an unknown flag): rank 0 prints them, every rank exits with CLI11's status.
  add_test(NAME cli.error_once_mpi_unknown_flag
           COMMAND ${count_error_lines} 1 "The following argument was not expected: --nosuch"
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> bench --nosuch)
  set_tests_properties(cli.error_once_mpi_unknown_flag PROPERTIES TIMEOUT 60 PROCESSORS 2)
  # A bad value every rank checks alike (-n 0): one line, not one per rank.
  add_test(NAME cli.error_once_mpi_bad_value
           COMMAND ${count_error_lines} 1 "-n/--iters must be at least 1"
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> bench -n 0)
  set_tests_properties(cli.error_once_mpi_bad_value PROPERTIES TIMEOUT 60 PROCESSORS 2)
endif()
# Threads backend: an option every rank would meet alike is refused before the ranks start (one
# line), and a rank's failure is printed by that rank and not again by main.
add_test(NAME cli.error_once_threads_allreduce_option
         COMMAND ${count_error_lines} 1 "${unknown_algorithm_line}"
                 $<TARGET_FILE:ringlab> allreduce --backend threads --ranks 2 --algo nosuch)
set_tests_properties(cli.error_once_threads_allreduce_option PROPERTIES TIMEOUT 60)
add_test(NAME cli.error_once_threads_rank_failure
         COMMAND ${CMAKE_COMMAND} -E env RINGLAB_FAULT=rank=1,step=1,action=fail
                 ${count_error_lines} 1 "^ringlab: (rank 1|error): fault injected: failing at ring allreduce step 1"
                 $<TARGET_FILE:ringlab> bench --backend threads --ranks 3 -b 8 -e 64 -n 1 -w 0 --algo ring)
set_tests_properties(cli.error_once_threads_rank_failure PROPERTIES TIMEOUT 60)
# The ranks that rank 1's failure stopped print nothing each (their messages only repeat it): one
# "ringlab: rank" line in all, and one line saying that the others stopped.
foreach(command bench allreduce)
  set(small_job $<TARGET_FILE:ringlab> ${command} --backend threads --ranks 4 --algo ring -n 1)
  if(command STREQUAL "bench")
    list(APPEND small_job -b 8 -e 64 -w 0)
  endif()
  add_test(NAME cli.error_once_threads_${command}_stopped_ranks_silent
           COMMAND ${CMAKE_COMMAND} -E env RINGLAB_FAULT=rank=1,step=1,action=fail
                   ${count_error_lines} 1 "^ringlab: rank " ${small_job})
  add_test(NAME cli.error_once_threads_${command}_stopped_ranks_said_once
           COMMAND ${CMAKE_COMMAND} -E env RINGLAB_FAULT=rank=1,step=1,action=fail
                   ${count_error_lines} 1 "^ringlab: 3 other ranks stopped because rank 1 failed$" ${small_job})
  set_tests_properties(cli.error_once_threads_${command}_stopped_ranks_silent
                       cli.error_once_threads_${command}_stopped_ranks_said_once PROPERTIES TIMEOUT 60)
endforeach()

# Open MPI: the same small sweep under Open MPI's mpirun, with a ringlab built against Open MPI
# (preset openmpi-check: the openmpi preset at -O0 as a unity build, target ringlab only, ccache when present).
# Skipped (77) without Open MPI.
if(RINGLAB_ENABLE_MPI)
  add_test(NAME mpi.openmpi_sweep
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/openmpi_sweep.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/openmpi-output/openmpi-n2.json)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/openmpi-output)
  # A cold build of the CLI takes minutes on 2 cores; with ccache it is seconds.
  set_tests_properties(mpi.openmpi_sweep PROPERTIES TIMEOUT 1500 PROCESSORS 2 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
                       PASS_REGULAR_EXPRESSION "# backend mpi \\| 2 ranks \\| MPI: Open MPI .*mpi-native .*# Out of bounds values : 0 OK")
endif()
