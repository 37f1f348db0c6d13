# The scan through the tessera executable: every shipped deck runs (shrunk) and verifies on 2
# ranks, and bad inputs end with exit code 2 and a message naming the problem on every rank.
set(tessera_exe $<TARGET_FILE:tessera>)
set(scan_decks ${PROJECT_SOURCE_DIR}/inputs/scan)
set(scan_data ${CMAKE_CURRENT_BINARY_DIR}/scan_cli_data)

add_executable(make_scan_inputs make_scan_inputs.cpp)
target_link_libraries(make_scan_inputs PRIVATE tessera_scan)
add_test(NAME cli_scan_make_inputs COMMAND make_scan_inputs ${scan_data})
set_tests_properties(cli_scan_make_inputs PROPERTIES FIXTURES_SETUP scan_inputs LABELS unit
                     ENVIRONMENT "${TESSERA_TEST_ENV}")

# Shipped decks, shrunk to seconds (the CPU backend, so the same on a GPU host).
set(shrink --backend cpu --set scan.input.length=200003 --set run.steps=2)
# A scan has no simulated time and reports its own measured rate: the closing line shows neither.
tessera_add_cli_test(cli_scan_seed_deck NP 2 COMMAND ${tessera_exe} run ${scan_decks}/seed_123123123.toml ${shrink}
                     EXPECT_CODE 0 EXPECT_REGEX "done: step 2, 2 steps in [0-9:]+ \\([0-9.]+ s\\)\n.*verified \\(sample\\).*equal the CPU reference.*scan: 2 steps, median .* G elements/s"
                     REJECT_REGEX "done: [^\n]*(t = |/s)" MAX_SECONDS 60)
tessera_add_cli_test(cli_scan_int64_deck NP 3 COMMAND ${tessera_exe} run ${scan_decks}/int32_into_int64.toml ${shrink}
                     EXPECT_CODE 0 EXPECT_REGEX "int32 -> int64.*verified \\(full\\)" MAX_SECONDS 60)
tessera_add_cli_test(cli_scan_float_deck NP 2 COMMAND ${tessera_exe} run ${scan_decks}/float64_exclusive.toml ${shrink}
                     EXPECT_CODE 0 EXPECT_REGEX "verified \\(full\\).*agree with the CPU reference" MAX_SECONDS 60)
tessera_add_cli_test(cli_scan_beyond_2e31_deck NP 2 COMMAND ${tessera_exe} run ${scan_decks}/beyond_2e31.toml ${shrink}
                     EXPECT_CODE 0 EXPECT_REGEX "verified" MAX_SECONDS 60)
# write_input.toml writes output/scan/write_input/scan.h5, which from_file.toml reads (same work dir).
tessera_add_cli_test(cli_scan_write_input_deck NP 2 COMMAND ${tessera_exe} run ${scan_decks}/write_input.toml ${shrink}
                     EXPECT_CODE 0 EXPECT_REGEX "wrote output/scan/write_input/scan.h5" MAX_SECONDS 60)
tessera_add_cli_test(cli_scan_from_file_deck NP 3 COMMAND ${tessera_exe} run ${scan_decks}/from_file.toml --backend cpu
                     --set scan.input.file=${CMAKE_CURRENT_BINARY_DIR}/cli_scan_write_input_deck.work/output/scan/write_input/scan.h5
                     EXPECT_CODE 0 EXPECT_REGEX "file .*scan.h5 dataset /input.*verified \\(full\\)" MAX_SECONDS 60)
set_tests_properties(cli_scan_write_input_deck PROPERTIES FIXTURES_SETUP scan_written_input)
set_tests_properties(cli_scan_from_file_deck PROPERTIES FIXTURES_REQUIRED scan_written_input)
tessera_add_cli_test(cli_scan_length_too_large NP 2 COMMAND ${tessera_exe} run ${scan_decks}/seed_123123123.toml --backend cpu
                     --set scan.input.length=1000000000000000 EXPECT_CODE 2
                     EXPECT_REGEX "scan.input.length = 1000000000000000 .*: this run needs at least [0-9.]+ [KMGTPE]iB of host memory per rank on 2 rank\\(s\\).*would fit on [0-9]+ ranks or more" MAX_SECONDS 20)
# The shipped deck beyond 2^31 as it is, on a node with less host memory than it needs (24 GiB
# over the ranks): TESSERA_HOST_MEMORY makes the node offer 8 GiB, 4 GiB per rank. Refused up
# front with the size and the key, before the solver sets anything up (no "scan: N elements"
# line); no GPU visible, so the deck's backend = "auto" is the cpu backend on any host.
tessera_add_cli_test(cli_scan_beyond_2e31_too_little_memory NP 2 COMMAND ${tessera_exe} run ${scan_decks}/beyond_2e31.toml
                     EXPECT_CODE 2
                     EXPECT_REGEX "scan.input.length = 2147487747 \\(.*beyond_2e31.toml:[0-9]+\\): this run needs at least 12.0 GiB of host memory per rank on 2 rank\\(s\\), and a rank has 4.00 GiB \\(TESSERA_HOST_MEMORY shared by the ranks on its node\\); it would fit on 7 ranks or more"
                     REJECT_REGEX "scan: [0-9]+ elements" MAX_SECONDS 20)
set_property(TEST cli_scan_beyond_2e31_too_little_memory APPEND PROPERTY ENVIRONMENT
             TESSERA_HOST_MEMORY=8589934592 CUDA_VISIBLE_DEVICES=-1)

# Bad inputs: exit code 2 on every rank, a message naming the key and the problem.
set(from_inputs run ${scan_decks}/from_file.toml --backend cpu --set scan.input.file=${scan_data}/inputs.h5)
foreach(case
    "missing_dataset|--set|scan.input.dataset=/nope|dataset.*/nope"
    "unsupported_type|--set|scan.input.dataset=u8|u8 in .*inputs.h5 holds uint8, an unsupported type"
    # A complex dataset: the type is unsupported, said once (issue 30: it was said twice).
    "complex_type|--set|scan.input.dataset=cplx|cplx in .*inputs.h5 holds an unsupported type. the scan sums int32"
    "not_1d|--set|scan.input.dataset=cube|has 3 dimensions"
    "length_mismatch|--set|scan.input.dataset=x|--set|scan.input.length=999|scan.input.length = 999 but dataset x in .* has 1000 elements"
    "type_mismatch|--set|scan.input.dataset=x|--set|scan.type=float64|scan.type = \"float64\" but dataset x")
  string(REPLACE "|" ";" parts "${case}")
  list(POP_FRONT parts name)
  list(POP_BACK parts regex)
  tessera_add_cli_test(cli_scan_${name} NP 2 COMMAND ${tessera_exe} ${from_inputs} ${parts} EXPECT_CODE 2
                       EXPECT_REGEX "${regex}" MAX_SECONDS 30)
  set_tests_properties(cli_scan_${name} PROPERTIES FIXTURES_REQUIRED scan_inputs)
endforeach()
tessera_add_cli_test(cli_scan_missing_file NP 2 COMMAND ${tessera_exe} run ${scan_decks}/from_file.toml --backend cpu
                     --set scan.input.file=no_such_file.h5 EXPECT_CODE 2 EXPECT_REGEX "no_such_file.h5" MAX_SECONDS 30)
tessera_add_cli_test(cli_scan_gpu_variant_on_cpu COMMAND ${tessera_exe} run ${scan_decks}/seed_123123123.toml
                     --backend cpu --set scan.variant=lookback EXPECT_CODE 2
                     EXPECT_REGEX "scan.variant.*lookback\" runs on a GPU" MAX_SECONDS 30)
tessera_add_cli_test(cli_scan_float_into_int64 COMMAND ${tessera_exe} run ${scan_decks}/float64_exclusive.toml
                     --backend cpu --set scan.accumulate=int64 EXPECT_CODE 2
                     EXPECT_REGEX "--set scan.accumulate=int64: accumulate = \"int64\" applies to integer input"
                     MAX_SECONDS 30)

# The benchmark runs (timings are never checked).
tessera_add_cli_test(cli_scan_bench NP 2 COMMAND ${tessera_exe} bench scan --quick --repeat 2 --backend cpu
                     EXPECT_CODE 0 EXPECT_REGEX "cpu-serial.*distributed cpu P=2" MAX_SECONDS 60)
