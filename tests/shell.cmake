# shell: every shell script parses (bash -n): scripts/, .ci/run and the device calls in
# docs/device-runs/, so that a call script's syntax error is found here, not on the device.
add_test(NAME shell.syntax COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/shell/check_syntax.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(shell.syntax PROPERTIES LABELS cpu)
