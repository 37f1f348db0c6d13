# The tessera executable end to end: exit codes, messages, and what `info` reports.
set(tessera_exe $<TARGET_FILE:tessera>)
set(deck_dir ${CMAKE_CURRENT_SOURCE_DIR}/decks)

tessera_add_cli_test(cli_version COMMAND ${tessera_exe} --version EXPECT_CODE 0
                     EXPECT_REGEX "tessera [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit [0-9a-f]+")
tessera_add_cli_test(cli_help COMMAND ${tessera_exe} --help EXPECT_CODE 0 EXPECT_REGEX "run.*info.*bench")
tessera_add_cli_test(cli_no_subcommand COMMAND ${tessera_exe} EXPECT_CODE 2 EXPECT_REGEX "subcommand")
tessera_add_cli_test(cli_bad_backend NP 2 COMMAND ${tessera_exe} run ${deck_dir}/unknown_solver.toml --backend gpu
                     EXPECT_CODE 2)
# Deck errors: reported once (by rank 0) with file and line, exit code 2 on every rank.
tessera_add_cli_test(cli_missing_deck NP 2 COMMAND ${tessera_exe} run no_such_deck.toml EXPECT_CODE 2
                     EXPECT_REGEX "cannot read the deck 'no_such_deck.toml'" MAX_SECONDS 20)
tessera_add_cli_test(cli_deck_is_directory NP 2 COMMAND ${tessera_exe} run ${deck_dir} EXPECT_CODE 2
                     EXPECT_REGEX "cannot read the deck '.*decks': it is a directory" MAX_SECONDS 20)
tessera_add_cli_test(cli_unknown_solver NP 2 COMMAND ${tessera_exe} run ${deck_dir}/unknown_solver.toml EXPECT_CODE 2
                     EXPECT_REGEX "unknown_solver.toml:2.*nbodyy" MAX_SECONDS 20)
tessera_add_cli_test(cli_unknown_bench COMMAND ${tessera_exe} bench nosuch EXPECT_CODE 2
                     EXPECT_REGEX "unknown benchmark 'nosuch'")
# info: truthful about this machine; one line per rank.
tessera_add_cli_test(cli_info NP 3 COMMAND ${tessera_exe} info EXPECT_CODE 0
                     EXPECT_REGEX "HDF5 +1\\.[0-9]+\\.[0-9]+, parallel.*rank +0 on.*rank +1 on.*rank +2 on" MAX_SECONDS 30)
# Without a GPU, info reports no transport in words the deck's [run] transport (auto, staged,
# mpi, nccl) can be read against, never "host", which the deck does not accept.
tessera_add_cli_test(cli_info_cpu_transport COMMAND ${tessera_exe} info EXPECT_CODE 0
                     EXPECT_REGEX "transport \\(auto\\) +no transport: the cpu backend hands host memory to plain MPI \\(\\[run\\] transport chooses among the cuda backend's: nccl, mpi or staged\\)"
                     REJECT_REGEX "transport \\(auto\\) +host")
set_property(TEST cli_info_cpu_transport APPEND PROPERTY ENVIRONMENT CUDA_VISIBLE_DEVICES=-1)
# TESSERA_RANKS_PER_NODE (comm/context.hpp): 4 ranks of one host as 2 nodes of 2, or as 4
# nodes; a bad value is refused on every rank with the variable named.
tessera_add_cli_test(cli_info_ranks_per_node NP 4 COMMAND ${tessera_exe} info EXPECT_CODE 0
                     EXPECT_REGEX "ranks +4 on 2 node[(]s[)] of at most 2 rank[(]s[)] [(]TESSERA_RANKS_PER_NODE[)] on 1 host[(]s[)]"
                     MAX_SECONDS 30)
set_property(TEST cli_info_ranks_per_node APPEND PROPERTY ENVIRONMENT TESSERA_RANKS_PER_NODE=2)
tessera_add_cli_test(cli_info_rank_per_node NP 2 COMMAND ${tessera_exe} info EXPECT_CODE 0
                     EXPECT_REGEX "ranks +2 on 2 node[(]s[)] of at most 1 rank[(]s[)]" MAX_SECONDS 30)
set_property(TEST cli_info_rank_per_node APPEND PROPERTY ENVIRONMENT TESSERA_RANKS_PER_NODE=1)
tessera_add_cli_test(cli_info_ranks_per_node_bad NP 2 COMMAND ${tessera_exe} info EXPECT_CODE 2
                     EXPECT_REGEX "TESSERA_RANKS_PER_NODE" MAX_SECONDS 30)
set_property(TEST cli_info_ranks_per_node_bad APPEND PROPERTY ENVIRONMENT TESSERA_RANKS_PER_NODE=0)
tessera_add_cli_test(cli_info_transport_bad NP 2 COMMAND ${tessera_exe} info EXPECT_CODE 2
                     EXPECT_REGEX "TESSERA_TRANSPORT.*pigeon.*nccl, mpi, staged|TESSERA_TRANSPORT.*pigeon.*nccl,mpi,staged"
                     MAX_SECONDS 30)
set_property(TEST cli_info_transport_bad APPEND PROPERTY ENVIRONMENT TESSERA_TRANSPORT=pigeon)
tessera_add_cli_test(cli_keys COMMAND ${tessera_exe} keys EXPECT_CODE 0 EXPECT_REGEX "status_interval")
tessera_add_cli_test(cli_bench_comm NP 2 COMMAND ${tessera_exe} bench comm --quick --repeat 3 EXPECT_CODE 0
                     EXPECT_REGEX "ring_shift/host.*halo/host" MAX_SECONDS 60)
# A launcher mismatch (Slurm started 3 tasks, MPI sees 1) is refused with an explanation.
tessera_add_cli_test(cli_slurm_mismatch COMMAND ${tessera_exe} info EXPECT_CODE 1
                     EXPECT_REGEX "Slurm started 3 tasks but MPI_Comm_size is 1")
set_property(TEST cli_slurm_mismatch APPEND PROPERTY ENVIRONMENT SLURM_NTASKS=3)
tessera_add_cli_test(cli_slurm_ignored COMMAND ${tessera_exe} info EXPECT_CODE 0 EXPECT_REGEX "ranks +1 on")
set_property(TEST cli_slurm_ignored APPEND PROPERTY ENVIRONMENT SLURM_NTASKS=3 TESSERA_IGNORE_SLURM_NTASKS=1)

# Deck errors in a real solver's deck (needs the nbody solver in this build).
if("nbody" IN_LIST TESSERA_SOLVERS)
  tessera_add_cli_test(cli_unknown_table NP 3 COMMAND ${tessera_exe} run ${deck_dir}/unknown_table.toml EXPECT_CODE 2
                       EXPECT_REGEX "unknown_table.toml:5.*did you mean \\[checkpoint\\]" MAX_SECONDS 20)
  tessera_add_cli_test(cli_bad_override NP 2 COMMAND ${tessera_exe} run ${deck_dir}/unknown_table.toml --set run.stepz=3
                       EXPECT_CODE 2 EXPECT_REGEX "--set run.stepz=3.*did you mean 'steps'" MAX_SECONDS 20)
  # A shipped deck that insists on cuda, where no GPU is visible (hidden even on a GPU host):
  # refused before anything runs, naming the key and its line, with the way to run on the CPU.
  tessera_add_cli_test(cli_cuda_deck_without_gpu NP 2 COMMAND ${tessera_exe} run
                       ${PROJECT_SOURCE_DIR}/inputs/nbody/plummer_1m_gpu.toml --set run.output_dir=no_gpu EXPECT_CODE 2
                       EXPECT_REGEX "run.backend = \"cuda\" \\(.*plummer_1m_gpu.toml:[0-9]+\\): backend 'cuda' requested, but (this tessera was built without CUDA|no CUDA device is visible).*pass --backend cpu \\(or set backend = \"auto\""
                       MAX_SECONDS 20)
  set_property(TEST cli_cuda_deck_without_gpu APPEND PROPERTY ENVIRONMENT CUDA_VISIBLE_DEVICES=-1)
  tessera_add_cli_test(cli_cuda_option_without_gpu COMMAND ${tessera_exe} run
                       ${PROJECT_SOURCE_DIR}/inputs/nbody/plummer_demo.toml --backend cuda --set run.output_dir=no_gpu
                       EXPECT_CODE 2 EXPECT_REGEX "--backend cuda: backend 'cuda' requested, but .*use --backend cpu"
                       MAX_SECONDS 20)
  set_property(TEST cli_cuda_option_without_gpu APPEND PROPERTY ENVIRONMENT CUDA_VISIBLE_DEVICES=-1)
endif()
# docs/deck-reference.md is `tessera keys` with every solver: it must not drift from the schema.
if(TESSERA_SOLVERS STREQUAL TESSERA_ALL_SOLVERS)
  add_test(NAME cli_deck_reference
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:tessera>|keys" -DFILE=${PROJECT_SOURCE_DIR}/docs/deck-reference.md
                   "-DHINT=regenerate it with: build/bin/tessera keys > docs/deck-reference.md"
                   -P ${PROJECT_SOURCE_DIR}/tests/support/compare_output.cmake)
  set_tests_properties(cli_deck_reference PROPERTIES LABELS unit ENVIRONMENT "${TESSERA_TEST_ENV}")
endif()

# Environment variables (core/env_registry.cpp). docs/environment.md is `tessera keys --env`.
add_test(NAME cli_env_reference
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:tessera>|keys|--env" -DFILE=${PROJECT_SOURCE_DIR}/docs/environment.md
                 "-DHINT=regenerate it with: build/bin/tessera keys --env > docs/environment.md"
                 -P ${PROJECT_SOURCE_DIR}/tests/support/compare_output.cmake)
set_tests_properties(cli_env_reference PROPERTIES LABELS unit ENVIRONMENT "${TESSERA_TEST_ENV}")
# Every TESSERA_* variable the code reads goes through the registry and is declared there.
add_test(NAME env_readers_declared
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/tests/support/check_env_readers.cmake)
set_tests_properties(env_readers_declared PROPERTIES LABELS unit)
# An unknown TESSERA_* variable draws one warning (rank 0 only) with the nearest declared name;
# the test suite's own variables (declared test-only) draw none.
tessera_add_cli_test(cli_env_unknown NP 2 COMMAND ${tessera_exe} keys --env EXPECT_CODE 0
                     EXPECT_REGEX "warning: environment variable TESSERA_BFS_PROFIL is not one tessera knows \\(ignored\\); did you mean TESSERA_BFS_PROFILE\\?"
                     REJECT_REGEX "TESSERA_FAKE_DISK_DIR is not|TESSERA_BFS_PROFIL is not.*TESSERA_BFS_PROFIL is not"
                     MAX_SECONDS 20)
set_property(TEST cli_env_unknown APPEND PROPERTY ENVIRONMENT TESSERA_BFS_PROFIL=1 TESSERA_FAKE_DISK_DIR=/nonexistent)
# TESSERA_LOG_LEVEL sets the level (here: no warnings) unless --log-level is given; a bad value is refused.
tessera_add_cli_test(cli_env_log_level COMMAND ${tessera_exe} keys --env EXPECT_CODE 0 REJECT_REGEX "TESSERA_BOGUS is not")
set_property(TEST cli_env_log_level APPEND PROPERTY ENVIRONMENT TESSERA_LOG_LEVEL=error TESSERA_BOGUS=1)
tessera_add_cli_test(cli_env_log_level_option COMMAND ${tessera_exe} --log-level warn keys --env EXPECT_CODE 0
                     EXPECT_REGEX "TESSERA_BOGUS is not one tessera knows")
set_property(TEST cli_env_log_level_option APPEND PROPERTY ENVIRONMENT TESSERA_LOG_LEVEL=error TESSERA_BOGUS=1)
tessera_add_cli_test(cli_env_bad_value NP 2 COMMAND ${tessera_exe} keys EXPECT_CODE 2
                     EXPECT_REGEX "environment variable TESSERA_LOG_LEVEL='loud': 'loud' is not allowed \\(expected one of debug, info"
                     MAX_SECONDS 20)
set_property(TEST cli_env_bad_value APPEND PROPERTY ENVIRONMENT TESSERA_LOG_LEVEL=loud)
tessera_add_cli_test(cli_env_bad_flag NP 2 COMMAND ${tessera_exe} info EXPECT_CODE 2
                     EXPECT_REGEX "TESSERA_IGNORE_SLURM_NTASKS='maybe': 'maybe' is not a flag \\(expected 1/0, true/false"
                     MAX_SECONDS 20)
set_property(TEST cli_env_bad_flag APPEND PROPERTY ENVIRONMENT SLURM_NTASKS=3 TESSERA_IGNORE_SLURM_NTASKS=maybe)
tessera_add_cli_test(cli_env_cuda_aware_forced COMMAND ${tessera_exe} info EXPECT_CODE 0
                     EXPECT_REGEX "CUDA-aware MPI +no \\(forced by TESSERA_CUDA_AWARE_MPI=0\\)")
set_property(TEST cli_env_cuda_aware_forced APPEND PROPERTY ENVIRONMENT TESSERA_CUDA_AWARE_MPI=off)
tessera_add_cli_test(cli_env_cuda_aware_bad COMMAND ${tessera_exe} info EXPECT_CODE 2
                     EXPECT_REGEX "TESSERA_CUDA_AWARE_MPI='2': '2' is not a flag")
set_property(TEST cli_env_cuda_aware_bad APPEND PROPERTY ENVIRONMENT TESSERA_CUDA_AWARE_MPI=2)
tessera_add_cli_test(cli_keys_env_and_solver COMMAND ${tessera_exe} keys --env nbody EXPECT_CODE 2 EXPECT_REGEX "excludes")
