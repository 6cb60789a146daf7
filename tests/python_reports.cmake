# Issue 28, part 3b: plotting/ as the installable package ringlab_reports (docs/python-reports.md).
# SYSTEM_PYTHON3 comes from cmake/ringlab_python.cmake (a python3 with pandas, matplotlib and
# jsonschema). Included at the end of tests/CMakeLists.txt.
if(SYSTEM_PYTHON3)
  # load(): every report kind, committed and hand-made, flattening, the median's interval, errors.
  add_test(NAME plotting.ringlab_reports
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_ringlab_reports.py)
  # The figures from their axes: side-by-side placements, p50, error bars, log speed-up, KiB/MiB ticks.
  add_test(NAME plotting.plot_axes COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_plot_axes.py)
  set_tests_properties(plotting.ringlab_reports plotting.plot_axes PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "Ran [1-9][0-9]* tests.*OK" FAIL_REGULAR_EXPRESSION "FAILED \\(")
  # pip install ./plotting and pip install -e ./plotting, offline, in throwaway venvs (77: skipped,
  # with the reason, where this python cannot make venvs or lacks what an offline install needs).
  add_test(NAME plotting.venv_install
           COMMAND ${CMAKE_COMMAND} -E env PYTHON=${SYSTEM_PYTHON3}
                   bash ${PROJECT_SOURCE_DIR}/plotting/tests/test_venv_install.sh ${CMAKE_CURRENT_BINARY_DIR}/venv-install)
  set_tests_properties(plotting.venv_install PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "test_venv_install: both installs work")
  # The plotting scripts run under $PYTHON, not a fixed path: the fixtures test gets the one CMake found.
  set_tests_properties(plotting.fixtures PROPERTIES ENVIRONMENT PYTHON=${SYSTEM_PYTHON3})
  # The plot scripts on committed reports of each kind (read through ringlab_reports).
  set(committed ${PROJECT_SOURCE_DIR}/results)
  set(python_plots ${CMAKE_CURRENT_BINARY_DIR}/python-reports-plots)
  add_test(NAME plotting.committed_bench_plots
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/ringlab_plot.py
                   ${committed}/bench/2026-12-03/mpi-n2.json ${committed}/bench/2026-12-03/mpi-n4.json
                   --out ${python_plots}/bench)
  set_tests_properties(plotting.committed_bench_plots PROPERTIES TIMEOUT 180
                       PASS_REGULAR_EXPRESSION "wrote .*speedup_vs_baseline_n2.svg.*wrote .*busbw_vs_ranks.svg")
  add_test(NAME plotting.committed_scale_plot
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/scale_plot.py
                   ${committed}/scale/2026-12-03/vs-n-switch/2.json ${committed}/scale/2026-12-03/vs-n-switch/4.json
                   --sizes 1K --out ${python_plots}/scale)
  set_tests_properties(plotting.committed_scale_plot PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "### 1024 B \\(1 KiB\\).*wrote .*time_vs_ranks_1024.svg")
  add_test(NAME plotting.committed_compare_plot
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/compare_plot.py
                   ${committed}/calibration/2026-12-03-compare-fresh-n2.json --out ${python_plots}/compare)
  add_test(NAME plotting.committed_train_plot
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/train_plot.py
                   ${committed}/training/2026-12-03/dp-n4-run1.json ${committed}/training/2026-12-03/hybrid-n4-run1.json
                   --out ${python_plots}/train)
  add_test(NAME plotting.committed_replay_plot
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/replay_plot.py
                   ${committed}/replay/2026-12-03/curve-nvswitch-n2.json ${committed}/replay/2026-12-03/curve-nvswitch-n4.json
                   ${committed}/replay/2026-12-03/replay-vgg16-miniimagenet-n4-run1.json --out ${python_plots}/replay)
  set_tests_properties(plotting.committed_compare_plot plotting.committed_train_plot plotting.committed_replay_plot
                       PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "wrote .*\\.svg")
  # type_op_accuracy.py: the documents' own summaries (ring's flow-level median at N = 2 is 48.4 % in
  # that document's summary; the rows' plain median would be 55.9 %), exit 3 as goals are missed.
  add_test(NAME plotting.type_op_accuracy
           COMMAND bash -c "out=$(\"$0\" \"$1\" \"$2\" \"$3\" --out \"$4\"); rc=$?; echo \"$out\"; [[ $rc == 3 ]] || { echo \"exit $rc, want 3\"; exit 1; }"
                   ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/type_op_accuracy.py
                   ${committed}/calibration/2026-12-03-compare-fresh-n2.json ${committed}/calibration/2026-12-03-compare-fresh-n4.json
                   ${python_plots}/type-op-accuracy)
  set_tests_properties(plotting.type_op_accuracy PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "float32 \\| 2 \\| ring \\| flow-level \\| 12 \\| 48.4 % .*float32 \\| 4 \\| ring .*wrote .*type_op_accuracy.svg"
                       FAIL_REGULAR_EXPRESSION "exit [0-9]+, want 3")
  # reduce_kernel_goals.py on the committed kernel run: the ratios of that run, exit 3 (goals missed there).
  add_test(NAME plotting.reduce_kernel_goals
           COMMAND bash -c "out=$(\"$0\" \"$1\" \"$2\"); rc=$?; echo \"$out\"; [[ $rc == 3 ]] || { echo \"exit $rc, want 3\"; exit 1; }"
                   ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/reduce_kernel_goals.py
                   ${committed}/micro/2026-12-06-reduce-kernels/micro.json)
  set_tests_properties(plotting.reduce_kernel_goals PROPERTIES TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "Kernels on AVX3.*\\| float64 \\| max \\| 30.6 \\| 1.36 \\| \\*\\*0.82\\*\\* .*\\| bfloat16 \\| sum \\| 32.2 \\| 1.43 \\|  \\| 0.96 \\| 4.2x \\|"
                       FAIL_REGULAR_EXPRESSION "exit [0-9]+, want 3")
  # A report of every type (bench -d all, threads, tiny) is plotted per (type, op): 6 sets of busbw,
  # latency and speed-up figures named after their pair, none mixing them (-o all splits the same
  # way; all 30 pairs took up to 2 minutes here, too long for CI).
  set(type_op_report ${python_plots}/all-types-n2.json)
  file(MAKE_DIRECTORY ${python_plots})  # bench writes into it and makes no folders
  add_test(NAME plotting.type_op_report
           COMMAND ringlab bench --backend threads --ranks 2 -b 8 -e 64 -f 8 -n 2 -w 0 --algo ring,interval_paired
                   -d all -o max --json ${type_op_report} --force)
  set_tests_properties(plotting.type_op_report PROPERTIES TIMEOUT 60 FIXTURES_SETUP type_op_report
                       PASS_REGULAR_EXPRESSION "# report written to")
  add_test(NAME plotting.type_op_plots
           COMMAND bash -c "rm -rf \"$2\" && \"$0\" \"$1\" \"$3\" --out \"$2\" | tail -n 1"
                   ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/ringlab_plot.py ${python_plots}/type-op ${type_op_report})
  set_tests_properties(plotting.type_op_plots PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED type_op_report
                       FIXTURES_SETUP type_op_plots PASS_REGULAR_EXPRESSION "wrote .*speedup_vs_baseline_int64_max.svg")
  add_test(NAME plotting.type_op_plot_names
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/check_type_op_plots.py
                   ${type_op_report} ${python_plots}/type-op)
  set_tests_properties(plotting.type_op_plot_names PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED "type_op_report;type_op_plots"
                       PASS_REGULAR_EXPRESSION "type-op plots ok: 6 pairs, 36 files")
  # goal_tables.py reads through ringlab_reports too: a wrong kind is refused with both named.
  add_test(NAME plotting.goal_tables_refuses_train_report
           COMMAND ${expect_failure} "dp-n4-run1.json: not a measured ringlab.bench/1 report .it is a ringlab.train/1 report"
                   ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/goal_tables.py ${committed}/training/2026-12-03/dp-n4-run1.json)
  set_tests_properties(plotting.goal_tables_refuses_train_report PROPERTIES TIMEOUT 60)
  # scripts/algorithm-map.sh and plotting/algorithm_map.py on a small grid (N = 16 of two families,
  # both models): the reports, the summary's tables and each family's two figures.
  set(algorithm_map ${CMAKE_CURRENT_BINARY_DIR}/algorithm-map)
  add_test(NAME plotting.algorithm_map
           COMMAND bash -c "rm -rf \"$1\" && MAP_MAX_N=16 MAP_FAMILIES='torus-square dragonfly' MAP_FLOW_FACTOR=64 \
                            \"$0\" \"$1\" \"$2\" && cat \"$1/summary.md\" && ls \"$1/plots\""
                   ${PROJECT_SOURCE_DIR}/scripts/algorithm-map.sh ${algorithm_map} $<TARGET_FILE:ringlab>)
  set_tests_properties(plotting.algorithm_map PROPERTIES TIMEOUT 300 ENVIRONMENT PYTHON=${SYSTEM_PYTHON3}
                       PASS_REGULAR_EXPRESSION "\\| dragonfly \\| flow-level \\| 4 \\|.*\\| torus-square \\| closed-form \\| 24 \\|.*## Swing.*\\| torus-square \\| flow-level \\| [0-9.]+x \\| N = 16.*\\| dragonfly \\| 16 \\| [0-9.]+ \\| [0-9.]+ \\(.*bound_dragonfly_flow-level.svg.*winners_torus-square_closed-form.svg")
endif()
# No script, test or CMake file names a fixed interpreter path: they run ${PYTHON:-python3},
# SYSTEM_PYTHON3 or `#!/usr/bin/env python3`.
add_test(NAME python.no_fixed_interpreter
         COMMAND bash -c "! grep -rn --include='*.sh' --include='*.py' --include='*.cmake' --include=CMakeLists.txt \
                          -e '/usr/bin/[p]ython' scripts plotting tests cmake CMakeLists.txt"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(python.no_fixed_interpreter PROPERTIES TIMEOUT 30)
