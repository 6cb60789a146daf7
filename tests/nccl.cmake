# NCCL's algorithms and protocols (docs/algorithms.md, docs/simulator.md): simulate prices them on
# a two-node NVSwitch preset and says which protocol each size chose; bad names are refused.
# Included from tests/CMakeLists.txt.
add_test(NAME cli.simulate_nccl_protocol_auto
         COMMAND $<TARGET_FILE:ringlab> simulate --topology nvswitch:8,nodes:2 --algo nccl_ring,nccl_tree
                 --model closed-form --protocol auto -b 8 -e 512M -f 4)
set_tests_properties(cli.simulate_nccl_protocol_auto PROPERTIES TIMEOUT 120
  PASS_REGULAR_EXPRESSION "# nccl_ring: protocol ll from 8 B, [^\n]*simple from [0-9]+ B\n# nccl_tree: protocol ll from 8 B")
add_test(NAME cli.simulate_nccl_protocol_unknown COMMAND ${expect_failure}
         "--protocol: unknown protocol 'fast'; valid protocols: none, simple, ll, ll128, auto"
         $<TARGET_FILE:ringlab> simulate --topology switch:4 --protocol fast)
add_test(NAME cli.simulate_nccl_protocol_trace_auto COMMAND ${expect_failure}
         "--trace prices one protocol"
         $<TARGET_FILE:ringlab> simulate --topology switch:4 --algo nccl_ring -b 64 -e 64 --protocol auto
                 --trace ${CMAKE_CURRENT_BINARY_DIR}/nccl_protocol_auto_trace.json)
add_test(NAME cli.nccl_ring_bad_channels COMMAND ${expect_failure}
         "--channels 65 must be between 1 and 64"
         $<TARGET_FILE:ringlab> simulate --topology switch:4 --algo nccl_ring --channels 65)
set_tests_properties(cli.simulate_nccl_protocol_unknown cli.simulate_nccl_protocol_trace_auto cli.nccl_ring_bad_channels
                     PROPERTIES TIMEOUT 30)
