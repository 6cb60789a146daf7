# Output files (issue 27, point 1; docs/reliability.md "Output files"): one writer for every file
# (io/output_file.hpp). Links planted at the output or at any predictable temporary name are never
# followed; devices, FIFOs and folders are refused before any work; "" is refused; "-" is standard
# output; a full disk is named and leaves the old file.
set(output_dir ${CMAKE_CURRENT_BINARY_DIR}/output-files)
file(MAKE_DIRECTORY ${output_dir}/folder)
add_test(NAME cli.output_hijack COMMAND ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_output_hijack.py
                                        $<TARGET_FILE:ringlab> ${PROJECT_SOURCE_DIR} ${output_dir}/hijack)
set_tests_properties(cli.output_hijack PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION " passed, 0 failed")
add_test(NAME cli.output_disk_full COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_disk_full.sh $<TARGET_FILE:ringlab>)
set_tests_properties(cli.output_disk_full PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
# A folder given as the report is refused at once, not after the sweep (was: "cannot rename").
add_test(NAME cli.output_folder_refused_before_the_sweep COMMAND ${expect_failure}
         "--json '.*/folder' is a directory; ringlab writes only regular files"
         $<TARGET_FILE:ringlab> bench --backend threads --ranks 2 -b 8 -e 64M --json ${output_dir}/folder --force)
add_test(NAME cli.output_device_refused COMMAND ${expect_failure} "--json '/dev/null' is a device"
         $<TARGET_FILE:ringlab> simulate --topology switch:4 -b 8 -e 64 --json /dev/null --force)
add_test(NAME cli.output_empty_path_refused COMMAND ${expect_failure}
         "--json: the path is empty; give a file name, or - for standard output"
         $<TARGET_FILE:ringlab> compare ${PROJECT_SOURCE_DIR}/plotting/tests/sample-report-n2.json --topology switch:2 --json "")
add_test(NAME cli.output_two_to_stdout_refused COMMAND ${expect_failure} "at most one output can go there"
         $<TARGET_FILE:ringlab> simulate --topology switch:4 -b 64 -e 64 --algo ring --json - --trace -)
set_tests_properties(cli.output_folder_refused_before_the_sweep cli.output_device_refused cli.output_empty_path_refused
                     cli.output_two_to_stdout_refused PROPERTIES TIMEOUT 20)
# "-": the report alone on standard output (the table goes to standard error), no file named "-".
add_test(NAME cli.output_report_on_stdout
         COMMAND bash -c "cd \"$1\" && \"$2\" bench --backend threads --ranks 2 -b 8 -e 64 -n 1 -w 0 --algo ring --json - \
                          2>/dev/null | \"$3\" -c 'import json,sys; print(json.load(sys.stdin)[\"schema\"])' && test ! -e -"
                 _ ${output_dir} $<TARGET_FILE:ringlab> ${SYSTEM_PYTHON3})
set_tests_properties(cli.output_report_on_stdout PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "^ringlab.bench/1")
