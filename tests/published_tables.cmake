# Issue 32, point 4: plotting/published_tables.py (scripts/published-tables.sh) on a hand-made
# table and predictions: the two-point fit, the medians and goals, the switches, the refusals.
# Included at the end of tests/CMakeLists.txt.
if(SYSTEM_PYTHON3)
  add_test(NAME plotting.published_tables
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/plotting/tests/test_published_tables.py
                   ${CMAKE_CURRENT_BINARY_DIR}/published-tables)
  set_tests_properties(plotting.published_tables PROPERTIES TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "test_published_tables: 12 passed, 0 failed")
endif()
