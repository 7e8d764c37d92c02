# core: row keys, scenarios, the counter-based generator and generated inputs, bf16 rounding and
# the portable math. check: accuracy figures, --check-heads, FLA levels and the main job's list
# options (run_parsing.cpp is compiled into kda-bench only, so it is compiled here too).
kda_add_test(core_tests
  SOURCES
    core/row_key_test.cpp
    core/scenario_test.cpp
    core/generator_test.cpp
    core/inputs_test.cpp
    core/bf16_test.cpp
    core/portable_math_test.cpp
  LIBS kda_core)
target_include_directories(core_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})

kda_add_test(check_tests
  SOURCES
    check/accuracy_test.cpp
    check/bit_compare_test.cpp
    check/select_heads_test.cpp
    check/fla_levels_test.cpp
    check/run_parsing_test.cpp
    check/row_check_test.cpp
    ${PROJECT_SOURCE_DIR}/src/cli/run_parsing.cpp
  LIBS kda_check)
target_include_directories(check_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src)
