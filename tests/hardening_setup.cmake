# Issue 27, "set-up obeys --timeout": a rank stalled during the job's set-up (RINGLAB_FAULT
# step=setup: mpi before the shared-memory bring-up, threads before the agreement check;
# step=mpi-init: before MPI_Init_thread) ends the whole job with a non-zero status within
# --timeout + 10 s, a waiting rank naming the set-up wait; nothing half-written (the previous
# report is left as it was). cli.setup_sigstop_mpi stops a real rank process with SIGSTOP shortly
# after it starts. Included at the end of tests/CMakeLists.txt (uses its check_fault, fault_bench,
# bench_dir).
if(SYSTEM_PYTHON3)
  set(setup_stall_pattern "ringlab: rank 1: fault injected: stalling at set-up")
  # threads: ranks 0 and 2 reach the bench's agreement check, rank 1 never does; rank 0's wait
  # for its reply times out (or rank 2's, waiting on rank 0: whichever deadline comes first), the
  # world is aborted, the stalled rank is released and, with the third, said to have stopped.
  add_test(NAME cli.setup_fault_threads_bench
           COMMAND ${check_fault} --fault rank=1,step=setup,action=stall --status 2 --max-seconds 12
                   --expect "${setup_stall_pattern} \\(before the configuration agreement check\\)"
                   --expect "ringlab: rank [02]: threads backend: rank [02]: configuration check \\(reply\\) timed out: .*\\[set-up: configuration agreement check of the bench options, after --timeout 2 s\\]"
                   --expect "ringlab: (2 other ranks stopped because rank [02]|1 other rank stopped because ranks 0, 2) failed"
                   --report ${bench_dir}/setup-fault-threads-bench.json --unchanged
                   -- $<TARGET_FILE:ringlab> ${fault_bench} --timeout 2 --backend threads --ranks 3
                   --json ${bench_dir}/setup-fault-threads-bench.json)
  # calibrate's first wait on a peer is the exchange of the ranks' CPUs.
  add_test(NAME cli.setup_fault_threads_calibrate
           COMMAND ${check_fault} --fault rank=1,step=setup,action=stall --status 2 --max-seconds 12
                   --expect "${setup_stall_pattern} \\(before the configuration agreement check\\)"
                   --expect "ringlab: rank 0: threads backend: rank 0: rank placement \\(rank's CPUs\\) timed out: .* rank 1 .*\\[set-up: exchanging the ranks' CPUs, after --timeout 2 s\\]"
                   --report ${bench_dir}/setup-fault-threads-calibrate.json --unchanged
                   -- $<TARGET_FILE:ringlab> calibrate --backend threads --ranks 2 -b 8 -e 64K --timeout 2 --force
                   --json ${bench_dir}/setup-fault-threads-calibrate.json)
  set_tests_properties(cli.setup_fault_threads_bench cli.setup_fault_threads_calibrate PROPERTIES TIMEOUT 60)

  if(RINGLAB_ENABLE_MPI)
    set(setup_shm_wait "mpi backend: rank [0-9]: set-up timed out: shared-memory set-up: .* \\[set-up, after --timeout 3 s\\]")
    # mpi: rank 1 stalls before the shared-memory bring-up; the others time out in its first
    # collective and MPI_Abort the job. ARGN: the ringlab command after the launcher.
    function(add_setup_fault_mpi_test name ranks)
      add_test(NAME cli.setup_fault_mpi_${name}
               COMMAND ${check_fault} --fault rank=1,step=setup,action=stall --status nonzero --max-seconds 13
                       --expect "${setup_stall_pattern} \\(before the shared-memory bring-up\\)"
                       --expect "ringlab: rank [02]: ${setup_shm_wait}"
                       --report ${bench_dir}/setup-fault-mpi-${name}.json --unchanged
                       -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} $<TARGET_FILE:ringlab> ${ARGN}
                          --timeout 3 --json ${bench_dir}/setup-fault-mpi-${name}.json)
      set_tests_properties(cli.setup_fault_mpi_${name} PROPERTIES TIMEOUT 60 PROCESSORS 2)
    endfunction()
    add_setup_fault_mpi_test(np2_bench 2 ${fault_bench})
    add_setup_fault_mpi_test(np3_bench 3 ${fault_bench})
    add_setup_fault_mpi_test(np2_calibrate 2 calibrate -b 8 -e 64K --force)
    # allreduce writes no report; --json is not one of its options, so it gets its own entry.
    add_test(NAME cli.setup_fault_mpi_np2_allreduce
             COMMAND ${check_fault} --fault rank=1,step=setup,action=stall --status nonzero --max-seconds 13
                     --expect "${setup_stall_pattern} \\(before the shared-memory bring-up\\)"
                     --expect "ringlab: rank 0: ${setup_shm_wait}"
                     -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> allreduce --count 4096
                        --timeout 3)
    # Before MPI_Init_thread: rank 0 waits inside MPI start-up, where no nonblocking form exists;
    # its guard thread ends the process at the deadline and mpiexec ends the job.
    add_test(NAME cli.setup_fault_mpi_np2_init
             COMMAND ${check_fault} --fault rank=1,step=mpi-init,action=stall --status nonzero --max-seconds 13
                     --expect "${setup_stall_pattern} \\(before MPI_Init_thread\\)"
                     --expect "ringlab: rank 0: mpi backend: rank 0: set-up timed out: MPI start-up: MPI_Init_thread did not return .* \\[set-up, after --timeout 3 s\\]"
                     --report ${bench_dir}/setup-fault-mpi-init.json --unchanged
                     -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ringlab> ${fault_bench}
                        --timeout 3 --json ${bench_dir}/setup-fault-mpi-init.json)
    # A real rank process stopped (SIGSTOP) 0.1 s after it appears: wherever that lands (MPI
    # start-up, set-up or the sweep), the job ends non-zero within --timeout + 10 s and nothing is
    # left running.
    add_test(NAME cli.setup_sigstop_mpi
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sigstop_rank.sh --delay 0.1 --timeout 3 --max-seconds 13
                     --mpiexec ${MPIEXEC_EXECUTABLE} --ranks 3 --ringlab $<TARGET_FILE:ringlab>
                     --work ${bench_dir})
    set_tests_properties(cli.setup_fault_mpi_np2_allreduce cli.setup_fault_mpi_np2_init cli.setup_sigstop_mpi
                         PROPERTIES TIMEOUT 60 PROCESSORS 2)
  endif()
endif()
