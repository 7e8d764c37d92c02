# timing: the CPU side of the timing work (roofline counts, results paths and GPU class slugs,
# the nightly's regression decision and baseline plan, the optional JSON fields, tables with
# stages; golden file in data/timing/, KDA_UPDATE_GOLDEN=1 rewrites it), and its GPU side
# (timing engine modes, graph capture, NVML clock, ceilings; label gpu, skips without a device).
kda_add_test(timing_tests
  SOURCES
    timing/roofline_test.cpp
    timing/results_paths_test.cpp
    timing/regression_test.cpp
    timing/baseline_plan_test.cpp
    timing/timing_fields_test.cpp
    timing/stage_table_test.cpp
  LIBS kda_report)
target_include_directories(timing_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})

if(KDA_BUILD_KERNELS)
  kda_add_test(gpu_timing_tests
    SOURCES timing/gpu_timing_test.cpp
    LIBS kda_gpu kda_core kda_report
    LABELS gpu)
  target_include_directories(gpu_timing_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  add_dependencies(gpu_timing_tests kda)
endif()

# The timing options and nightly on the command line (kda_cli_test from cli.cmake, included first).
if(COMMAND kda_cli_test)
  kda_cli_test(help_lists_the_timing_options EXIT_CODE 0 ARGS --help
    MATCH "--cold-l2" "--graph" "--retake-throttled" "--roofline" "--before" "nightly")
  kda_cli_test(nightly_help_lists_its_options EXIT_CODE 0 ARGS nightly --help
    MATCH "--baseline" "--threshold[^\n]*0\\.02" "--accuracy-factor[^\n]*1\\.5" "--check-heads[^\n]*the heads the baseline checked"
          "--repeat-check[^\n]*3" "--print-slug")
  kda_cli_test(nightly_negative_threshold_is_a_usage_error EXIT_CODE 2 ARGS nightly --threshold -0.5
    MATCH "--threshold must be >= 0")
  kda_cli_test(nightly_repeat_check_of_one_is_a_usage_error EXIT_CODE 2 ARGS nightly --repeat-check 1
    MATCH "N >= 2")
  kda_cli_test(nightly_without_gpu_exits_3 EXIT_CODE 3 SKIP_IF_GPU ARGS nightly
    MATCH "nightly needs an NVIDIA GPU")
  kda_cli_test(print_slug_without_gpu_exits_3 EXIT_CODE 3 SKIP_IF_GPU ARGS nightly --print-slug
    MATCH "no GPU")
endif()
