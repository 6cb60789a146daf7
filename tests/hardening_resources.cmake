# Issue 27, section 2 "Crashes and runaway resources": what would exhaust memory or run for
# minutes is refused before it starts (an estimate, the limit, the flag that changes it), and
# verify / simulate / compare end at --time-limit. Included at the end of tests/CMakeLists.txt.

# The threads backend: N^2 mailboxes; a hard cap on ranks (issue: 22 GB RSS at 20000, bad_alloc at 100000).
add_test(NAME cli.resources_bench_threads_20000_ranks COMMAND ${expect_failure}
         "--ranks 20000 is more than the threads backend's limit of 4096 ranks"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 20000 -b 8 -e 8 -n 1 --algo ring)
add_test(NAME cli.resources_allreduce_threads_100000_ranks COMMAND ${expect_failure}
         "--ranks 100000 is more than the threads backend's limit of 4096 ranks"
         $<TARGET_FILE:ringlab> allreduce --backend threads --ranks 100000 --count 2)

# Segments below 4 KiB (issue: --segment-bytes 1 -b 4M ran for minutes, never hitting --timeout).
add_test(NAME cli.resources_bench_segment_1 COMMAND ${expect_failure}
         "--segment-bytes 1: the smallest segment is 4096 B"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 -b 4M -e 4M -n 1 -w 0 --segment-bytes 1)
add_test(NAME cli.resources_allreduce_segment_4095 COMMAND ${expect_failure}
         "--segment-bytes 4095: the smallest segment is 4096 B"
         $<TARGET_FILE:ringlab> allreduce --backend threads --ranks 2 --count 1M --segment-bytes 4095)
add_test(NAME cli.resources_simulate_segment_100 COMMAND ${expect_failure}
         "--segment-bytes 100: the smallest segment is 4096 B"
         $<TARGET_FILE:ringlab> simulate --topology switch:2 -b 4M -e 4M --segment-bytes 100)
add_test(NAME cli.resources_simulate_segment_4k COMMAND $<TARGET_FILE:ringlab> simulate --topology switch:2
         -b 64K -e 64K --algo ring --segment-bytes 4K)  # the smallest segment is accepted

# The flow-level model's work (issue: switch:200000 ran past 60 s; ring there is 8e10 flows).
add_test(NAME cli.resources_simulate_flows COMMAND ${expect_failure}
         "the flow-level model would simulate about 8e\\+10 flows on 200000 ranks .* the limit is 2e\\+08: use --model closed-form"
         $<TARGET_FILE:ringlab> simulate --topology switch:200000 -b 8 -e 8 --algo ring)

# --time-limit: a clear end, status 2, no report written.
add_test(NAME cli.resources_simulate_time_limit COMMAND ${expect_failure}
         "simulate ran past its time limit of 1 s \\(--time-limit 1\\)"
         bash -c "rm -f \"$1\"; \"$0\" simulate --topology switch:4000 -b 8 -e 8 --algo ring --time-limit 1 --json \"$1\"; \
status=$?; if [[ -e $1 ]]; then echo \"a report was written\"; exit 0; fi; exit $status"
         $<TARGET_FILE:ringlab> ${CMAKE_CURRENT_BINARY_DIR}/resources-simulate.json)
add_test(NAME cli.resources_verify_time_limit COMMAND ${expect_failure}
         "verify ran past its time limit of 0.5 s \\(--time-limit 0.5\\)"
         $<TARGET_FILE:ringlab> verify --algo ring --ranks 400..1000 --quiet --time-limit 0.5)
add_test(NAME cli.resources_bad_time_limit COMMAND ${expect_failure}
         "--time-limit 0 is not a budget: give a finite number of seconds > 0"
         $<TARGET_FILE:ringlab> verify --ranks 2 --time-limit 0)
add_test(NAME cli.resources_bad_time_limit_inf COMMAND ${expect_failure}
         "--time-limit inf is not a budget"
         $<TARGET_FILE:ringlab> simulate --topology switch:2 --time-limit inf)
set_tests_properties(cli.resources_bench_threads_20000_ranks cli.resources_allreduce_threads_100000_ranks
                     cli.resources_bench_segment_1 cli.resources_allreduce_segment_4095
                     cli.resources_simulate_segment_100 cli.resources_simulate_segment_4k
                     cli.resources_simulate_flows cli.resources_simulate_time_limit cli.resources_verify_time_limit
                     cli.resources_bad_time_limit cli.resources_bad_time_limit_inf
                     PROPERTIES TIMEOUT 60)

# Inputs written by make_resource_inputs.py: schedules the verifier must refuse, bench reports for compare.
if(SYSTEM_PYTHON3)
  set(resource_inputs ${CMAKE_CURRENT_BINARY_DIR}/resource-inputs)
  add_test(NAME cli.resources_make_inputs
           COMMAND ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/make_resource_inputs.py ${resource_inputs}
                   ${PROJECT_SOURCE_DIR}/plotting/tests/sample-report-n2.json)
  set_tests_properties(cli.resources_make_inputs PROPERTIES FIXTURES_SETUP resource_inputs TIMEOUT 60)
  # Issue: a 58 KB file climbed to 4.2 GB, a 28 KB one took 20 s and 1 GB.
  add_test(NAME cli.resources_verify_state_4g COMMAND ${expect_failure}
           "2048 ranks x 8192 chunks need about 4.00 GiB of verifier state .* the limit is 0.5 GiB: verify a schedule with fewer chunks or ranks"
           $<TARGET_FILE:ringlab> verify --schedule ${resource_inputs}/verify-state-4g.json)
  add_test(NAME cli.resources_verify_state_1g COMMAND ${expect_failure}
           "1024 ranks x 8192 chunks need about 1.00 GiB of verifier state .* the limit is 0.5 GiB"
           $<TARGET_FILE:ringlab> verify --schedule ${resource_inputs}/verify-state-1g.json)
  # Little state, but every one of 80000 steps visits 60000 ranks.
  add_test(NAME cli.resources_verify_work COMMAND ${expect_failure}
           "60000 ranks x 1 chunks over 80000 steps need about 4.91e\\+09 verifier operations .* the limit is 1.07e\\+09"
           $<TARGET_FILE:ringlab> verify --schedule ${resource_inputs}/verify-work.json)
  add_test(NAME cli.resources_compare_segment_1 COMMAND ${expect_failure}
           "config.segment_bytes is 1; the smallest segment the simulator prices is 4096 B"
           $<TARGET_FILE:ringlab> compare ${resource_inputs}/compare-segment-1.json --topology switch:2)
  add_test(NAME cli.resources_compare_time_limit COMMAND ${expect_failure}
           "compare ran past its time limit of 1 s \\(--time-limit 1\\)"
           bash -c "rm -f \"$2\"; \"$0\" compare \"$1\" --topology switch:2000 --time-limit 1 --json \"$2\"; \
status=$?; if [[ -e $2 ]]; then echo \"a comparison was written\"; exit 0; fi; exit $status"
           $<TARGET_FILE:ringlab> ${resource_inputs}/compare-2000-ranks.json ${CMAKE_CURRENT_BINARY_DIR}/resources-compare.json)
  add_test(NAME cli.resources_compare_flows COMMAND ${expect_failure}
           "the flow-level model would simulate about 8e\\+09 flows for these reports' rows \\(up to 20000 ranks\\); the limit is 2e\\+08"
           $<TARGET_FILE:ringlab> compare ${resource_inputs}/compare-20000-ranks.json --topology switch:20000)
  set_tests_properties(cli.resources_verify_state_4g cli.resources_verify_state_1g cli.resources_verify_work
                       cli.resources_compare_segment_1 cli.resources_compare_time_limit cli.resources_compare_flows
                       PROPERTIES FIXTURES_REQUIRED resource_inputs TIMEOUT 60)
endif()

# topology show --routes on a ring lists N^2/4 hops (ring:100000 ran past 60 s): ended by its budget.
add_test(NAME cli.resources_topology_routes_time_limit COMMAND ${expect_failure}
         "topology show ran past its time limit of 1 s \\(--time-limit 1\\)"
         bash -c "\"$0\" topology show ring:100000 --routes --time-limit 1 > /dev/null" $<TARGET_FILE:ringlab>)
set_tests_properties(cli.resources_topology_routes_time_limit PROPERTIES TIMEOUT 60)
