# Docs and results a newcomer can read (issue 30, part 4). Included at the end of tests/CMakeLists.txt.
# results/README.md is generated from the run folders' READMEs by scripts/results-index.py, and
# every link and repository path that README.md, docs/*.md and the results READMEs name exists.
if(SYSTEM_PYTHON3)
  add_test(NAME docs.results_index
           COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/results-index.py --check)
  add_test(NAME docs.paths COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/check-doc-paths.py)
  set_tests_properties(docs.results_index PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION "results/README.md is up to date")
  set_tests_properties(docs.paths PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION ", 0 broken reference")
endif()
# Every #include stays within the layers docs/architecture.md draws (its "Layers" table).
if(SYSTEM_PYTHON3)
  add_test(NAME docs.layers COMMAND ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/check-layers.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs.layers PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION ", 0 outside their layer")
endif()
