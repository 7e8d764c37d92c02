# cli: kda-bench's exit codes and messages (0 ok, 1 failure, 2 usage error, 3 no CUDA device or
# kernel library), run from the source root like a user would. Each case is one run of
# cli/run_expect.cmake; inputs in data/cli/.
set(_kda_cli_script ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_expect.cmake)
set(_kda_cli_data ${CMAKE_CURRENT_SOURCE_DIR}/data/cli)
set(_kda_cli_tmp ${CMAKE_CURRENT_BINARY_DIR}/cli_tmp)

# kda_cli_test(NAME EXIT_CODE <n|NONZERO> ARGS ... [MATCH regex ...] [NO_MATCH regex]
#              [STDOUT_NO_MATCH regex] [EXACT_STDOUT line ...] [CLEAN_DIR dir] [SETUP_ARGS ...] [EXPECT_FILES file ...]
#              [SKIP_IF_GPU])
# Arguments and lines may not hold '|' or ';', and an empty EXACT_STDOUT line is dropped.
function(kda_cli_test name)
  cmake_parse_arguments(T "SKIP_IF_GPU" "EXIT_CODE;NO_MATCH;STDOUT_NO_MATCH;CLEAN_DIR"
                        "ARGS;MATCH;EXACT_STDOUT;SETUP_ARGS;EXPECT_FILES" ${ARGN})
  string(JOIN "|" args ${T_ARGS})
  set(defs -DPROGRAM=$<TARGET_FILE:kda-bench> "-DARGS=${args}" -DEXIT_CODE=${T_EXIT_CODE})
  list(LENGTH T_MATCH n)
  list(APPEND defs -DMATCH_COUNT=${n})
  set(i 0)
  foreach(re ${T_MATCH})
    math(EXPR i "${i} + 1")
    list(APPEND defs "-DMATCH_${i}=${re}")
  endforeach()
  if(DEFINED T_NO_MATCH)
    list(APPEND defs "-DNO_MATCH=${T_NO_MATCH}")
  endif()
  if(DEFINED T_STDOUT_NO_MATCH)
    list(APPEND defs "-DSTDOUT_NO_MATCH=${T_STDOUT_NO_MATCH}")
  endif()
  if(T_EXACT_STDOUT)
    string(JOIN "|" lines ${T_EXACT_STDOUT})
    list(APPEND defs "-DEXACT_STDOUT=${lines}")
  endif()
  if(T_CLEAN_DIR)
    list(APPEND defs "-DCLEAN_DIR=${T_CLEAN_DIR}")
  endif()
  if(T_SETUP_ARGS)
    string(JOIN "|" setup ${T_SETUP_ARGS})
    list(APPEND defs "-DSETUP_ARGS=${setup}")
  endif()
  if(T_EXPECT_FILES)
    string(JOIN "|" files ${T_EXPECT_FILES})
    list(APPEND defs "-DEXPECT_FILES=${files}")
  endif()
  if(T_SKIP_IF_GPU)
    list(APPEND defs -DSKIP_IF_GPU=ON)
  endif()
  add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${_kda_cli_script}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.${name} PROPERTIES LABELS cpu SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()

# ---- usage and help ----
kda_cli_test(no_arguments_is_a_usage_error EXIT_CODE 2
  MATCH "give --rows" "--help")
kda_cli_test(help_mentions_rows EXIT_CODE 0 ARGS --help
  MATCH "--rows" "Exit codes: 0 ok, 1 .*, 2 .*, 3 ")
kda_cli_test(unknown_option_is_a_usage_error EXIT_CODE 2 ARGS --no-such-option)

# ---- row keys (list) ----
kda_cli_test(list_expands_a_pattern_to_exactly_four_keys EXIT_CODE 0 ARGS list --rows 4doc:*:off:*
  EXACT_STDOUT 4doc:g:off:saved 4doc:g:off:replay 4doc:raw:off:saved 4doc:raw:off:replay)
kda_cli_test(list_all_starts_with_the_seed_rows EXIT_CODE 0 ARGS list --rows all
  MATCH "^1doc:g:off:saved\n1doc:g:off:replay\n" "\n4doc:g:off:saved\n" "\nR2:g:off:saved\n" "\nm2:raw:fused:replay\n")
kda_cli_test(list_scenarios_shows_shapes EXIT_CODE 0 ARGS list --scenarios-only
  MATCH "1doc +64 heads +16384 tokens in 1 sequences" "4doc +64 heads +16384 tokens in 4 sequences"
        "R2 +4 heads +16384 tokens in 3 sequences" "m2 +4 heads +3548 tokens in 2 sequences")
kda_cli_test(bad_l2n_names_the_field_and_valid_values EXIT_CODE 2 ARGS list --rows 4doc:raw:of:saved
  MATCH "l2n" "'of'" "off, fused")
kda_cli_test(bad_gate_names_the_field_and_valid_values EXIT_CODE 2 ARGS list --rows 4doc:gg:off:saved
  MATCH "gate" "g, raw")
kda_cli_test(malformed_key_is_a_usage_error EXIT_CODE 2 ARGS list --rows 4doc:raw:off
  MATCH "malformed" "rows:gate:l2n:path")
kda_cli_test(unknown_scenario_lists_the_scenarios EXIT_CODE 2 ARGS list --rows 5doc:raw:off:saved
  MATCH "unknown rows '5doc'" "1doc, 4doc, R2, m2")
kda_cli_test(main_job_bad_key_is_a_usage_error EXIT_CODE 2 ARGS --rows 4doc:raw:of:saved
  MATCH "l2n" "off, fused")
kda_cli_test(main_job_unknown_scenario_is_a_usage_error EXIT_CODE 2 ARGS --rows nodoc:g:off:saved
  MATCH "'nodoc'" "1doc, 4doc, R2, m2")

kda_cli_test(same_bits_needs_before EXIT_CODE 2 ARGS --rows m2:g:off:saved --same-bits
  MATCH "--same-bits" "--before")

# ---- scenario files ----
kda_cli_test(invalid_scenario_file_names_the_file EXIT_CODE 2
  ARGS list --scenario-file ${_kda_cli_data}/bad_scenario.json
  MATCH "bad_scenario.json" "seq_lens\\[1\\]")
kda_cli_test(main_job_invalid_scenario_file_names_the_file EXIT_CODE 2
  ARGS --rows m2:g:off:saved --scenario-file ${_kda_cli_data}/bad_scenario.json
  MATCH "bad_scenario.json")
kda_cli_test(duplicate_scenario_file_names_both_files EXIT_CODE 2
  ARGS list --scenario-file scenarios/m2.json
  MATCH "duplicate name 'm2'")

# ---- without a GPU ----
kda_cli_test(main_job_without_gpu_exits_3_and_names_what_works EXIT_CODE 3 SKIP_IF_GPU
  ARGS --rows m2:g:off:saved --out ${_kda_cli_tmp}/no_gpu.json --force
  MATCH "needs an NVIDIA GPU" "Without one these work:[^\n]*list[^\n]*reference[^\n]*table[^\n]*compare")

# ---- FP64 reference and its dump (acceptance criterion) ----
set(_kda_dump_files)
foreach(f q k v beta x A_log dt_bias cu_seqlens do ref_o ref_dq ref_dk ref_dv ref_dbeta ref_dx ref_dA_log
          ref_ddt_bias ref_heads)
  list(APPEND _kda_dump_files ${_kda_cli_tmp}/dump/${f}.npy)
endforeach()
kda_cli_test(reference_dumps_inputs_and_fp64_outputs EXIT_CODE 0
  ARGS reference --rows m2:raw:fused:saved --check-heads 0 --dump ${_kda_cli_tmp}/dump
  CLEAN_DIR ${_kda_cli_tmp}/dump
  EXPECT_FILES ${_kda_dump_files} ${_kda_cli_tmp}/dump/manifest.json)
kda_cli_test(reference_refuses_a_non_empty_dump_dir EXIT_CODE NONZERO
  SETUP_ARGS reference --rows m2:raw:fused:saved --check-heads 1 --forward-only --dump ${_kda_cli_tmp}/refuse
  ARGS reference --rows m2:raw:fused:saved --check-heads 1 --forward-only --dump ${_kda_cli_tmp}/refuse
  CLEAN_DIR ${_kda_cli_tmp}/refuse
  MATCH "not empty" "--force")
kda_cli_test(reference_force_replaces_a_dump EXIT_CODE 0
  SETUP_ARGS reference --rows m2:g:off:saved --check-heads 1 --forward-only --dump ${_kda_cli_tmp}/force
  ARGS reference --rows m2:g:off:saved --check-heads 1 --forward-only --force --dump ${_kda_cli_tmp}/force
  CLEAN_DIR ${_kda_cli_tmp}/force
  EXPECT_FILES ${_kda_cli_tmp}/force/ref_o.npy ${_kda_cli_tmp}/force/g.npy ${_kda_cli_tmp}/force/manifest.json)
kda_cli_test(reference_needs_one_exact_key EXIT_CODE 2
  ARGS reference --rows m2:*:off:saved
  MATCH "exactly one row key")
kda_cli_test(reference_bad_check_heads_is_a_usage_error EXIT_CODE 2
  ARGS reference --rows m2:g:off:saved --check-heads 0,9
  MATCH "--check-heads" "out of range")

# ---- before/after tables ----
kda_cli_test(table_renders_after_over_before EXIT_CODE 0
  ARGS table ${_kda_cli_data}/before.json ${_kda_cli_data}/after.json
  MATCH "after/before" "\\| m2:g:off:saved \\| fwd \\| 0\\.8000 \\| 0\\.4000 \\| 0\\.5000 \\|")
kda_cli_test(table_csv EXIT_CODE 0
  ARGS table --format csv ${_kda_cli_data}/before.json ${_kda_cli_data}/after.json
  MATCH "m2:g:off:saved,bwd,")
kda_cli_test(table_missing_file_is_a_usage_error EXIT_CODE 2
  ARGS table ${_kda_cli_data}/before.json ${_kda_cli_data}/absent.json
  MATCH "absent.json")
kda_cli_test(merge_refuses_files_of_two_builds EXIT_CODE 2
  ARGS merge ${_kda_cli_data}/before.json ${_kda_cli_data}/after.json --out ${_kda_cli_tmp}/merged.json --force
  MATCH "cannot be merged" "kernel_library.build_id")
kda_cli_test(merge_needs_out EXIT_CODE 2
  ARGS merge ${_kda_cli_data}/before.json
  MATCH "--out is required")
kda_cli_test(compare_faster_exits_0 EXIT_CODE 0
  ARGS compare ${_kda_cli_data}/before.json ${_kda_cli_data}/after.json
  MATCH "faster")
kda_cli_test(compare_slower_exits_1 EXIT_CODE 1
  ARGS compare ${_kda_cli_data}/after.json ${_kda_cli_data}/before.json
  MATCH "slower")
# --common: after_subset.json lacks m2 bwd (BEFORE only) and adds R2 fwd and m2 dq (AFTER only).
kda_cli_test(table_shows_one_sided_entries_by_default EXIT_CODE 0
  ARGS table ${_kda_cli_data}/before.json ${_kda_cli_data}/after_subset.json
  MATCH "\\| R2:g:off:saved \\| fwd \\| — \\| 0\\.4000 \\| — \\|"
        "\\| m2:g:off:saved \\| bwd \\| 2\\.0000 \\| — \\| — \\|" "\\| dq \\| — \\| 2\\.00e-03 \\|"
  NO_MATCH "left out")
kda_cli_test(table_common_leaves_out_one_sided_entries EXIT_CODE 0
  ARGS table --common ${_kda_cli_data}/before.json ${_kda_cli_data}/after_subset.json
  MATCH "\\| m2:g:off:saved \\| fwd \\| 0\\.8000 \\| 0\\.4000 \\| 0\\.5000 \\|\n\n"
        "\\| o \\| 4\\.00e-03 \\| 2\\.00e-03 \\| 0\\.50 \\|"
        "left out 1 entry only in BEFORE \\(1 timing, 0 accuracy\\) and 2 only in AFTER \\(1 timing, 1 accuracy\\)"
  NO_MATCH "—")
# The whole output (stdout, then stderr) is the two CSV tables of the common entries and then the
# note, which is on stderr alone.
kda_cli_test(table_common_csv_stdout_is_the_common_entries_alone EXIT_CODE 0
  ARGS table --common --format csv ${_kda_cli_data}/before.json ${_kda_cli_data}/after_subset.json
  MATCH "^row,op,before \\(ms\\),after \\(ms\\),after/before\nm2:g:off:saved,fwd,0\\.8000,0\\.4000,0\\.5000\n\nrow,decay,tensor,[^\n]*\nm2:g:off:saved,normal,o,4\\.00e-03,2\\.00e-03,0\\.50,1\\.20e-02,6\\.00e-03,4\\.00,2\\.00\nkda-bench: --common left out 1 entry only in BEFORE [^\n]*\n$"
  STDOUT_NO_MATCH "left out")
kda_cli_test(compare_common_has_verdicts_of_the_common_entries EXIT_CODE 0
  ARGS compare --common ${_kda_cli_data}/before.json ${_kda_cli_data}/after_subset.json
  MATCH "\\| m2:g:off:saved \\| fwd \\| 0\\.8000 \\| 0\\.4000 \\| 0\\.5000 \\| faster \\|" "left out"
  NO_MATCH "R2:g:off:saved")
