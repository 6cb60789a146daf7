# Issue 27, section 4: calibration on a loaded machine (docs/calibration.md, "Noisy machines").
# Records from tests/calibration/: the committed 2026-12-03 N = 2 calibration with what a loaded
# machine measures written into it, refitted without measuring (deterministic).
set(loaded_records ${CMAKE_CURRENT_SOURCE_DIR}/calibration)
# One ping-pong sample x50 slow (2 MiB): left out and named; beta is the least squares of the other
# sizes (3.003e-11 s/B; with the sample 3.022e-11, with its clean value 2.766e-11).
add_test(NAME cli.calibrate_robust_one_wild_sample
         COMMAND ringlab calibrate --from-report ${loaded_records}/one-wild-sample-n2.json
                 --json ${bench_dir}/robust-one-wild-sample-n2.json --force)
set_tests_properties(cli.calibrate_robust_one_wild_sample PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION
                     "# alpha 0.430 us, beta 3.003e-11 s/B.*# ping-pong: 1 slow outlier\\(s\\) left out of the fit: ranks 0-1 2097152 B 2345.750 us \\(20.8 x the line\\).*calibrated topology written")
# Every small size slow (alpha above the large sizes' times): no positive least-squares slope
# through alpha ("fitted slope <= 0" before); Theil-Sen's slope of the large sizes is used and said.
add_test(NAME cli.calibrate_robust_slow_small_sizes
         COMMAND ringlab calibrate --from-report ${loaded_records}/slow-small-sizes-n2.json
                 --json ${bench_dir}/robust-slow-small-sizes-n2.json --force)
set_tests_properties(cli.calibrate_robust_slow_small_sizes PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION
                     "# beta: Theil-Sen slope of the large sizes: least squares through alpha found no positive slope.*calibrated topology written")
# Times that shrink with size fit no line: the error names the pair, the sizes and times, and what
# to pass; nothing is written.
add_test(NAME cli.calibrate_unfittable_names_pair_and_sizes
         COMMAND bash -c "rm -f \"$2\"; \"$0\" \"$1\" \"$3\" calibrate --from-report \"$4\" --json \"$2\" && test ! -e \"$2\""
                 ${expect_failure}
                 "^ringlab: error: calibration: cannot fit the ping-pong of ranks 0 and 1: beta from the sizes >= 65536 B \\(--beta-min-bytes\\), through alpha [0-9.]+ us from the sizes <= 4096 B \\(--alpha-max-bytes: 8 B [0-9.]+ us.*the times do not grow with size \\(least-squares slope -[0-9.e-]+ s/B through [0-9.]+ us, Theil-Sen slope -[0-9.e-]+ s/B\\): 131072 B 800.000 us, 524288 B 750.000 us.*measure again \\(ringlab calibrate without --from-report\\) on an idle machine or with a larger --min-time"
                 ${bench_dir}/never-written-unfittable.json $<TARGET_FILE:ringlab> ${loaded_records}/shrinking-times-n2.json)
set_tests_properties(cli.calibrate_unfittable_names_pair_and_sizes PROPERTIES TIMEOUT 30)
