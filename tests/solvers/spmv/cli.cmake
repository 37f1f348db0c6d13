# The spmv solver through the tessera executable: every shipped deck runs (on 2 or 3 ranks),
# bad inputs end with exit code 2 and a message naming the file and line or dataset, and the
# benchmark runs (timings are never checked).
set(tessera_exe $<TARGET_FILE:tessera>)
set(spmv_decks ${PROJECT_SOURCE_DIR}/inputs/spmv)
set(spmv_data ${CMAKE_CURRENT_SOURCE_DIR}/data)

# Shipped decks, run from the repository root as the decks say (relative data paths).
tessera_add_cli_test(cli_spmv_multiply_deck NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/multiply_powerlaw.toml
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_multiply
                     EXPECT_CODE 0 EXPECT_REGEX "spmv verified: the [0-9]+ rows of y agree.*done: step [0-9]+, [0-9]+ steps in [0-9:]+ \\([0-9.]+ s\\)\n.*spmv: [0-9]+ multiplies, median .* GFLOP/s"
                     REJECT_REGEX "done: [^\n]*(t = |/s)" MAX_SECONDS 90)
# CG reports no rate of its own: the closing line keeps its mean, saying what it is over.
tessera_add_cli_test(cli_spmv_cg_deck NP 3 COMMAND ${tessera_exe} run ${spmv_decks}/cg_poisson.toml
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_cg
                     EXPECT_CODE 0 EXPECT_REGEX "done: step [0-9]+, [0-9]+ steps in .*, mean [0-9.]+ [kMGT]? ?flop/s over this wall time.*spmv cg: converged in [0-9]+ iterations"
                     REJECT_REGEX "done: [^\n]*t = " MAX_SECONDS 90)
# The > 2^31-nonzero deck, shrunk to a 24^3 grid (the full size runs on a GPU host).
tessera_add_cli_test(cli_spmv_beyond_2e31_deck NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/beyond_2e31.toml
                     --set spmv.matrix.n=24 --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_beyond
                     EXPECT_CODE 0 EXPECT_REGEX "spmv verified: the 13824 rows of y agree" MAX_SECONDS 60)
tessera_add_cli_test(cli_spmv_matrix_market_deck NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                     --set spmv.matrix.file=${spmv_decks}/data/lshape_laplace.mtx
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_mtx
                     EXPECT_CODE 0 EXPECT_REGEX "spmv cg: converged in [0-9]+ iterations" MAX_SECONDS 90)

# Bad inputs: exit code 2 on every rank, the file and line in the message.
foreach(case
    "malformed_line|malformed_line.mtx|malformed_line.mtx:6: malformed entry '3 x 3'"
    "size_line_lies|size_line_lies.mtx|size_line_lies.mtx: the file ends after 4 entries, but line 3 announces 6"
    "index_out_of_range|index_out_of_range.mtx|index_out_of_range.mtx:7: column index 9 is outside \\[1, 4\\]"
    # One triangle only: an entry above the diagonal would be added to its mirror (issue 30).
    "symmetric_upper|symmetric_upper.mtx|symmetric_upper.mtx:8: entry \\(2, 3\\) lies above the diagonal, but a symmetric Matrix Market file stores only the lower triangle"
    "skew_upper|skew_upper.mtx|skew_upper.mtx:5: entry \\(1, 3\\) lies above the diagonal, but a skew-symmetric")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 file)
  list(GET parts 2 regex)
  tessera_add_cli_test(cli_spmv_${name} NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                       --set spmv.matrix.file=${spmv_data}/${file} --set spmv.mode=multiply
                       --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                       EXPECT_CODE 2 EXPECT_REGEX "${regex}" MAX_SECONDS 30)
endforeach()
add_executable(make_spmv_inputs make_spmv_inputs.cpp)
target_link_libraries(make_spmv_inputs PRIVATE tessera_io)
set(spmv_made ${CMAKE_CURRENT_BINARY_DIR}/spmv_cli_data)
add_test(NAME cli_spmv_make_inputs COMMAND make_spmv_inputs ${spmv_made})
set_tests_properties(cli_spmv_make_inputs PROPERTIES FIXTURES_SETUP spmv_inputs LABELS unit
                     ENVIRONMENT "${TESSERA_TEST_ENV}")
tessera_add_cli_test(cli_spmv_hdf5_row_ptr_decreases NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                     --set spmv.matrix.source=hdf5 --set spmv.matrix.file=${spmv_made}/bad_row_ptr.h5
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 2 EXPECT_REGEX "bad_row_ptr.h5: dataset /row_ptr decreases at row 2: row_ptr\\[2\\] = 5, row_ptr\\[3\\] = 3"
                     MAX_SECONDS 30)
set_tests_properties(cli_spmv_hdf5_row_ptr_decreases PROPERTIES FIXTURES_REQUIRED spmv_inputs)
tessera_add_cli_test(cli_spmv_cg_not_square NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                     --set spmv.matrix.file=${spmv_data}/not_square.mtx
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 2 EXPECT_REGEX "not_square.mtx.* is 3 x 4; conjugate gradients \\(spmv.mode = \"cg\"\\) needs a square matrix"
                     MAX_SECONDS 30)
tessera_add_cli_test(cli_spmv_cg_not_spd NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                     --set spmv.matrix.file=${spmv_data}/indefinite.mtx
                     --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 2 EXPECT_REGEX "indefinite.mtx.*CG iteration [0-9]+: p.Ap = .* is not symmetric positive definite"
                     MAX_SECONDS 30)
tessera_add_cli_test(cli_spmv_cg_stagnates NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/matrix_market.toml
                     --set spmv.matrix.file=${spmv_data}/neumann_1d.mtx --set spmv.cg.rhs=random
                     --set spmv.cg.stagnation=40 --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 1 EXPECT_REGEX "CG stagnated: the relative residual has not fallen below its smallest value, .* in 40 iterations"
                     MAX_SECONDS 30)
tessera_add_cli_test(cli_spmv_cuda_refused COMMAND ${tessera_exe} run ${spmv_decks}/multiply_powerlaw.toml
                     --backend cuda --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 2 EXPECT_REGEX "cuda" MAX_SECONDS 30)
tessera_add_cli_test(cli_spmv_cusparse_on_cpu COMMAND ${tessera_exe} run ${spmv_decks}/multiply_powerlaw.toml
                     --set spmv.variant=cusparse --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad
                     EXPECT_CODE 2 EXPECT_REGEX "spmv.variant = \"cusparse\" runs on a GPU" MAX_SECONDS 30)

tessera_add_cli_test(cli_spmv_too_large NP 2 COMMAND ${tessera_exe} run ${spmv_decks}/cg_poisson.toml
                     --set spmv.matrix.n=1000000 --set run.output_dir=${CMAKE_CURRENT_BINARY_DIR}/out_bad EXPECT_CODE 2
                     EXPECT_REGEX "spmv.matrix.n = 1000000 .*: this run needs at least [0-9.]+ [KMGTPE]iB of host memory per rank"
                     MAX_SECONDS 20)

# The benchmark runs (timings are never checked).
tessera_add_cli_test(cli_spmv_bench NP 2 COMMAND ${tessera_exe} bench spmv --quick --repeat 2 --backend cpu
                     EXPECT_CODE 0 EXPECT_REGEX "merge-path.*powerlaw" MAX_SECONDS 90)
