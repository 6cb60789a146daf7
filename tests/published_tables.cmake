# Issue 32, point 4: plotting/published_tables.py (scripts/published-tables.sh) on a hand-made
# table and predictions: the two-point fit, the medians and goals, the switches, the refusals.
# Included at the end of tests/CMakeLists.txt.
if(SYSTEM_PYTHON3)
  add_test(NAME plotting.published_tables
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_published_tables.py
                   ${CMAKE_CURRENT_BINARY_DIR}/published-tables)
  set_tests_properties(plotting.published_tables PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "test_published_tables: 15 passed, 0 failed")
  # scripts/published-tables.sh end to end on rows ringlab made at known lat and bw: the two-point
  # calibration finds them again (within 1 %) and predicts every row.
  add_test(NAME scripts.published_tables_round_trip
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_published_round_trip.py
                   $<TARGET_FILE:ringlab> ${CMAKE_CURRENT_BINARY_DIR}/published-round-trip)
  set_tests_properties(scripts.published_tables_round_trip PROPERTIES TIMEOUT 180 ENVIRONMENT PYTHON=${SYSTEM_PYTHON3}
                       PASS_REGULAR_EXPRESSION "test_published_round_trip: fitted lat=2e-06 bw=5e\\+09"
                       FAIL_REGULAR_EXPRESSION "FAIL:")
endif()
