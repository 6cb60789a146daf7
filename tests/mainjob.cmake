# Issue 28, part 2: a bench report says whether its ranks were oversubscribed or bound
# (report/rank_placement.hpp, judge_placement), in the header and in config; goal_tables.py
# takes ratios only from bound runs. Included at the end of tests/CMakeLists.txt.
if(RINGLAB_ENABLE_MPI)
  set(placement_dir ${CMAKE_CURRENT_BINARY_DIR}/placement-output)
  file(MAKE_DIRECTORY ${placement_dir})
  # 4 ranks on this project's 2-core machines: oversubscribed (needs fewer than 4 usable cores;
  # skipped with 77 on a larger machine).
  add_test(NAME cli.bench_oversubscribed_labelled
           COMMAND bash -c "[ \"$(nproc)\" -lt 4 ] || { echo 'skipped: 4 or more cores here, so 4 ranks are not oversubscribed'; exit 77; }
                            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 \"$1\" bench -b 8 -e 64 -n 1 -w 0 --algo ring \
                              --json \"$2\" --force &&
                            ${SYSTEM_PYTHON3} -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"config\"]; \
                              print(\"config:\", c[\"oversubscribed\"], c[\"bound\"], c[\"ranks_per_host\"])' \"$2\""
                   _ $<TARGET_FILE:ringlab> ${placement_dir}/mpi-n4.json)
  set_tests_properties(cli.bench_oversubscribed_labelled PROPERTIES TIMEOUT 120 PROCESSORS 2 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "# oversubscribed: 4 ranks on [0-3] usable cores of host .*: correctness and latency ordering only, not bandwidth.*config: True False 4")
  # 2 ranks bound to a core each: the figures are valid (needs 2 cores).
  add_test(NAME cli.bench_bound_placement
           COMMAND bash -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 -bind-to core \"$1\" bench -b 8 -e 64 -n 1 -w 0 \
                              --algo ring --json \"$2\" --force &&
                            ${SYSTEM_PYTHON3} -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"config\"]; \
                              print(\"config:\", c[\"oversubscribed\"], c[\"bound\"], c[\"usable_cores\"])' \"$2\""
                   _ $<TARGET_FILE:ringlab> ${placement_dir}/mpi-n2-bound.json)
  set_tests_properties(cli.bench_bound_placement PROPERTIES TIMEOUT 120 PROCESSORS 2
                       PASS_REGULAR_EXPRESSION "# placement: 2 ranks, one core each .bound.: performance figures valid.*config: False True 2")
endif()
if(SYSTEM_PYTHON3)
  # speedup-vs-mpi.md's arithmetic and refusals on hand-made reports (plotting/goal_tables.py).
  add_test(NAME plotting.goal_tables
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_goal_tables.py
                   ${CMAKE_CURRENT_BINARY_DIR}/goal-tables-output)
  set_tests_properties(plotting.goal_tables PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "goal_tables: 16 passed, 0 failed")
  # The committed main-job output: its tables come from its reports by this script. Sweeps made
  # before the main job bound its ranks (no mpi-n2-bound.json) have no fair speed-up to give.
  file(GLOB committed_sweeps ${PROJECT_SOURCE_DIR}/results/bench/*/mpi-n2-bound.json)
  if(committed_sweeps)
    list(SORT committed_sweeps)
    list(POP_BACK committed_sweeps latest_sweep_n2)
    get_filename_component(latest_sweep ${latest_sweep_n2} DIRECTORY)
    file(GLOB latest_reports ${latest_sweep}/mpi-n*.json)
    add_test(NAME plotting.speedup_vs_mpi_committed
             COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/goal_tables.py ${latest_reports})
    set_tests_properties(plotting.speedup_vs_mpi_committed PROPERTIES TIMEOUT 60
                         PASS_REGULAR_EXPRESSION "MPICH's MPI_Allreduce wins.*Latency order at N = ")
  endif()
endif()
if(RINGLAB_ENABLE_MPI AND SYSTEM_PYTHON3)
  # Plots of an oversubscribed report say so in their titles.
  set_tests_properties(cli.bench_oversubscribed_labelled PROPERTIES FIXTURES_SETUP oversubscribed_report)
  add_test(NAME plotting.oversubscribed_title
           COMMAND ${SYSTEM_PYTHON3} -c "import json, sys; sys.path.insert(0, sys.argv[1]); import ringlab_plot; \
                   print(ringlab_plot.Report(sys.argv[2], json.load(open(sys.argv[2])), 'out-of-place').subtitle())"
                   ${PROJECT_SOURCE_DIR}/plotting ${placement_dir}/mpi-n4.json)
  set_tests_properties(plotting.oversubscribed_title PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED oversubscribed_report
                       PASS_REGULAR_EXPRESSION "OVERSUBSCRIBED: 4 ranks on [0-3] cores: correctness and latency ordering only")
endif()
