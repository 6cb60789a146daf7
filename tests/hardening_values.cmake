# Values accepted that should not be (issue 27, section 3; docs/topology-format.md "Ranges"):
# NaN/inf and out-of-range numbers in options, RINGLAB_FAULT and JSON files, integers that wrapped
# when narrowed, trailing text after a JSON document, non-regular input files, flags whose 0 meant
# "not given", and control characters echoed from input. Fixtures: tests/values/.
set(values_dir ${CMAKE_CURRENT_SOURCE_DIR}/values)
set(values_out ${CMAKE_CURRENT_BINARY_DIR}/values)
file(MAKE_DIRECTORY ${values_out})
set(values_tests)
function(values_failure name regex)  # a function: a macro would unescape the regex once more
  add_test(NAME cli.values_${name} COMMAND ${expect_failure} "${regex}" ${ARGN})
  set(values_tests ${values_tests} cli.values_${name} PARENT_SCOPE)
endfunction()
set(rl $<TARGET_FILE:ringlab>)
set(threads2 --backend threads --ranks 2)

# Floating-point options: was a SIGSEGV (--min-time nan), a loss of nan, or "give --device-tflops".
values_failure(min_time_nan "--min-time: 'nan' is not a finite decimal number; expected a number in \\(0, 3600\\] s"
               ${rl} calibrate ${threads2} -b 8 -e 64K --min-time nan --json ${values_out}/c.json --force)
values_failure(lr_nan "--lr: 'nan' is not a finite decimal number" ${rl} train --synthetic 64 --lr nan)
values_failure(momentum_inf "--momentum: 'inf' is not a finite decimal number; expected a number in \\[0, 1\\)"
               ${rl} train --synthetic 64 --momentum inf)
values_failure(weight_decay_range "--weight-decay: 5 is outside \\[0, 1\\]" ${rl} train --synthetic 64 --weight-decay 5)
values_failure(device_tflops_nan "--device-tflops: 'nan' is not a finite decimal number"
               ${rl} replay --workload alexnet --device-tflops nan)
values_failure(simulate_device_tflops_inf "--device-tflops: 'inf' is not a finite decimal number"
               ${rl} simulate --topology switch:4 --workload alexnet --device-tflops inf)

# Flags whose 0 was taken as "not given", and sweeps that cannot be made.
values_failure(step_factor_0 "-f/--stepfactor 0 must be at least 2" ${rl} bench ${threads2} -b 8 -e 64 -f 0)
values_failure(step_factor_1 "-f/--stepfactor 1 must be at least 2" ${rl} simulate --topology switch:2 -b 8 -e 64 -f 1)
values_failure(step_bytes_0 "-i/--stepbytes 0 must be at least 1 byte" ${rl} bench ${threads2} -b 8 -e 64 -i 0)
values_failure(factor_and_step "-f/--stepfactor and -i/--stepbytes are both given"
               ${rl} simulate --topology switch:2 -b 8 -e 64 -f 4 -i 8)
values_failure(baseline_not_run "--baseline 'bogus' is not one of the algorithms run \\(ring\\)"
               ${rl} bench ${threads2} -b 8 -e 64 --algo ring --baseline bogus)
values_failure(endpoints_0 "--endpoints 0 is outside \\[1, 1048576\\]"
               ${rl} calibrate ${threads2} --endpoints 0 --json ${values_out}/c.json --force)
values_failure(simulate_ranks_0 "--ranks 0 does not match topology" ${rl} simulate --topology switch:4 --ranks 0 -b 8 -e 8)
values_failure(detect_ranks_0 "--ranks 0 must be at least 1" ${rl} topology detect --ranks 0 --json -)
values_failure(synthetic_0 "--synthetic 0 must be at least 1 record" ${rl} train --synthetic 0)

# RINGLAB_FAULT: a rank outside the job, a key twice, a non-finite stall.
foreach(fault_case "rank_outside;rank=7,step=0,action=stall;rank=7 is not a rank of this job, which has 2 rank\\(s\\)"
                   "duplicate_key;rank=0,step=0,action=stall,action=exit;'action' is given twice"
                   "seconds_nan;rank=0,step=0,action=stall,seconds=nan;seconds: 'nan' is not a finite decimal number")
  list(GET fault_case 0 fault_name)
  list(GET fault_case 1 fault_spec)
  list(GET fault_case 2 fault_regex)
  add_test(NAME cli.values_fault_${fault_name} COMMAND ${CMAKE_COMMAND} -E env RINGLAB_FAULT=${fault_spec}
                   ${expect_failure} "RINGLAB_FAULT: ${fault_regex}" ${rl} bench ${threads2} -b 8 -e 64 --algo ring)
  list(APPEND values_tests cli.values_fault_${fault_name})
endforeach()

# Topology files: physical ranges, whole documents, file kinds, overflowing numbers.
values_failure(topology_tiny_bandwidth
               "topology_tiny_bandwidth.json: topology JSON: links\\[0\\].bandwidth: 1e-300 is outside \\[1000, 1e\\+15\\] B/s"
               ${rl} simulate --topology ${values_dir}/topology_tiny_bandwidth.json -b 8 -e 64)
values_failure(compare_tiny_bandwidth "links\\[0\\].bandwidth: 1e-300 is outside"
               ${rl} compare ${values_dir}/bench_ok.json --topology ${values_dir}/topology_tiny_bandwidth.json)
values_failure(preset_tiny_bandwidth "parameter bw='1e-300' must be a number of bytes/s in \\[1000, 1e\\+15\\] B/s"
               ${rl} simulate --topology ring:4,bw=1e-300 -b 8 -e 64)
values_failure(topology_huge_latency "links\\[1\\].latency: 1000000 is outside \\[0, 10\\] s"
               ${rl} topology show ${values_dir}/topology_huge_latency.json)
values_failure(topology_trailing_garbage
               "topology_trailing_garbage.json' is not valid JSON: at line 2, column 1 .*must hold exactly one JSON document"
               ${rl} topology show ${values_dir}/topology_trailing_garbage.json)
values_failure(topology_number_overflow "topology_number_overflow.json' is not usable JSON: number overflow parsing '1e999'"
               ${rl} topology show ${values_dir}/topology_number_overflow.json)
values_failure(topology_directory "topology file '.*/values' is a directory" ${rl} topology show ${values_dir})
values_failure(topology_device "topology file '/dev/zero' is a device" ${rl} simulate --topology /dev/zero)
add_test(NAME cli.values_topology_fifo
         COMMAND bash -c "d=$(mktemp -d) && mkfifo \"$d/t.json\" && \"$1\" \"$2\" \"$3\" topology show \"$d/t.json\"; s=$?; rm -r \"$d\"; exit $s"
                 _ ${expect_failure} "is a FIFO; give a regular JSON file" ${rl})
list(APPEND values_tests cli.values_topology_fifo)
add_test(NAME cli.values_schedule_trailing_garbage
         COMMAND bash -c "\"$2\" schedule --algo ring --ranks 2 --json > \"$3/s.json\" && echo junk >> \"$3/s.json\" && \
                          \"$1\" 'schedule file .*s.json. is not valid JSON: at line' \"$2\" verify --schedule \"$3/s.json\""
                 _ ${expect_failure} ${rl} ${values_out})
list(APPEND values_tests cli.values_schedule_trailing_garbage)

# Calibration records (calibrate --from-report): every field in its range, integers before narrowing.
foreach(record_case "endpoints_2p32;endpoints: 4294967298 is outside \\[1, 1048576\\]"
                    "cores_2p32;parameters.cores: 4294967296 is outside \\[1, 65536\\]"
                    "pair_out_of_range;ping_pong.pairs\\[0\\].ranks\\[0\\]: -1 is outside \\[0, 1\\]"
                    "pair_same_rank;ping_pong.pairs\\[0\\].ranks: is \\[0, 0\\]; a pair needs two different ranks"
                    "active_ranks;concurrent.active_ranks: 1000000000 is outside \\[1, 2\\]"
                    "bytes_2p62;ping_pong.pairs\\[0\\].samples\\[6\\].bytes: 4611686018427387904 is outside \\[1, 1099511627776\\]")
  list(GET record_case 0 record_name)
  list(GET record_case 1 record_regex)
  values_failure(record_${record_name} "calibration_${record_name}.json: calibration record: ${record_regex}"
                 ${rl} calibrate --from-report ${values_dir}/calibration_${record_name}.json --json ${values_out}/c.json --force)
endforeach()
add_test(NAME cli.values_record_ok COMMAND ${rl} calibrate --from-report ${values_dir}/calibration_ok.json
                                           --json ${values_out}/ok.json --force --quiet)
list(APPEND values_tests cli.values_record_ok)

# Bench reports read by compare.
foreach(report_case "nranks_2p32;config.nranks: 4294967298 is outside \\[1, 1048576\\]"
                    "size_2p62;results\\[0\\].size_bytes: 4611686018427387904 is outside \\[0, 1099511627776\\]"
                    "segment_negative;config.segment_bytes: -1 is outside \\[0, 1099511627776\\]"
                    "time_huge;results\\[0\\].time_us.p50: 1e\\+300 is outside \\(0, 1e\\+09\\] us"
                    "trailing_garbage;is not valid JSON: at line 2, column 1")
  list(GET report_case 0 report_name)
  list(GET report_case 1 report_regex)
  values_failure(report_${report_name} "bench_${report_name}.json'?:? ?${report_regex}"
                 ${rl} compare ${values_dir}/bench_${report_name}.json --topology switch:2)
endforeach()

# Names from input files are escaped, not sent to the terminal.
add_test(NAME cli.values_escaped_node_name COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_escaped.sh
                                                   ${rl} topology show ${values_dir}/topology_escape_name.json --routes)
add_test(NAME cli.values_escaped_report_algorithm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_escaped.sh
                                                          ${rl} compare ${values_dir}/bench_escape_algorithm.json --topology switch:2)
list(APPEND values_tests cli.values_escaped_node_name cli.values_escaped_report_algorithm)
set_tests_properties(${values_tests} PROPERTIES TIMEOUT 60)
# --gamma within the topology format's range (it printed a 300-digit time, and inf with --workload);
# a preset's derived links (host-shm shares bw among the processes, a fat-tree's uplink carries
# leaf_ports x nic_bw) within the physical ranges too.
add_test(NAME cli.values_gamma_huge COMMAND ${expect_failure} "--gamma: 1e\\+308 is outside \\[0, 0.001\\] s/B"
         $<TARGET_FILE:ringlab> simulate --topology switch:2 --gamma 1e308 -b 8 -e 8)
add_test(NAME cli.values_preset_derived_link COMMAND ${expect_failure}
         "topology preset 'host-shm:1000,cores=1,bw=1e3,lat=10': the link .* gets a bandwidth of 1 B/s from the parameters: 1 is outside \\[1000, 1e\\+15\\] B/s"
         $<TARGET_FILE:ringlab> topology show host-shm:1000,cores=1,bw=1e3,lat=10)
set_tests_properties(cli.values_gamma_huge cli.values_preset_derived_link PROPERTIES TIMEOUT 30)
