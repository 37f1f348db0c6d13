# GPU tests (label gpu: run with `ctest -L gpu` on a GPU host; they skip visibly elsewhere).
tessera_add_mpi_test(scan_gpu SOURCES test_gpu_scans.cpp LIBS tessera_scan NPROCS 1 LABELS gpu TIMEOUT 900)
tessera_add_mpi_test(scan_gpu_candidates SOURCES test_gpu_lookback_candidates.cpp LIBS tessera_scan NPROCS 1
                     LABELS gpu TIMEOUT 900)
tessera_add_mpi_test(scan_gpu_distributed SOURCES test_gpu_distributed.cpp LIBS tessera_scan NPROCS 1 2 4
                     LABELS gpu TIMEOUT 600)

# The solver on GPUs through the executable: every GPU variant, verified in full, on 2 ranks.
foreach(variant lookback cub thrust blelloch-padded blelloch hillis-steele)
  tessera_add_cli_test(cli_scan_gpu_${variant} NP 2 COMMAND ${tessera_exe} run ${scan_decks}/seed_123123123.toml
                       --backend cuda --set scan.variant=${variant} --set scan.verify=full
                       --set scan.input.length=10000019 --set run.steps=3
                       EXPECT_CODE 0 EXPECT_REGEX "variant ${variant} \\(device memory\\).*verified \\(full\\)"
                       MAX_SECONDS 120 LABELS gpu)
  list(APPEND scan_gpu_cli cli_scan_gpu_${variant})
endforeach()
tessera_add_cli_test(cli_scan_gpu_bench COMMAND ${tessera_exe} bench scan --quick --repeat 3 --backend cuda
                     EXPECT_CODE 0 EXPECT_REGEX "lookback / cub.*dist lookback P=1" MAX_SECONDS 120 LABELS gpu)
list(APPEND scan_gpu_cli cli_scan_gpu_bench)
# Every look-back candidate in the benchmark, each checked against CUB's result there.
tessera_add_cli_test(cli_scan_gpu_bench_candidates COMMAND ${tessera_exe} bench scan --quick --repeat 2 --backend cuda
                     EXPECT_CODE 0 EXPECT_REGEX "cand best int32.*cand best int64" REJECT_REGEX "WRONG"
                     MAX_SECONDS 140 LABELS gpu)
set_property(TEST cli_scan_gpu_bench_candidates APPEND PROPERTY ENVIRONMENT "TESSERA_BENCH_SCAN_LOOKBACK=all")
list(APPEND scan_gpu_cli cli_scan_gpu_bench_candidates)
# Without a device these report "skipped" (the executable's own message), not failed.
set_tests_properties(${scan_gpu_cli} PROPERTIES SKIP_REGULAR_EXPRESSION "no CUDA device is visible")
