# Runs one command and checks its exit code and output (stdout and stderr together).
# cmake -DPROGRAM=<program> -DARGS=<a|b|c> -DEXIT_CODE=<n> [options] -P run_expect.cmake
#   PROGRAM          the program to run
#   ARGS             its arguments, separated by '|' (';' does not survive add_test)
#   EXIT_CODE        expected exit code; NONZERO for any failure
#   MATCH_COUNT      number of MATCH_<i> regexes (1-based) the output must each match
#   NO_MATCH         a regex the output must not match
#   STDOUT_NO_MATCH  a regex stdout alone must not match (e.g. a note meant for stderr)
#   EXACT_STDOUT     stdout must be exactly these lines, separated by '|'
#   CLEAN_DIR        removed before the run
#   SETUP_ARGS       arguments of a first run of PROGRAM that must exit 0 (e.g. to fill a folder)
#   EXPECT_FILES     files that must exist afterwards, separated by '|'
#   SKIP_IF_GPU      ON: print "[  SKIPPED ]" and stop when nvidia-smi lists a GPU (the test's
#                    SKIP_REGULAR_EXPRESSION then marks it skipped)
cmake_minimum_required(VERSION 3.25)

function(fail what)
  string(REPLACE "|" " " shown "${ARGS}")
  message(FATAL_ERROR "${what}\n--- command: ${PROGRAM} ${shown}\n--- exit code: ${rc}\n--- output:\n${output}")
endfunction()

function(split_bars out value)
  string(REPLACE "|" ";" list "${value}")
  set(${out} "${list}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED PROGRAM OR NOT DEFINED EXIT_CODE)
  message(FATAL_ERROR "run_expect.cmake needs -DPROGRAM and -DEXIT_CODE")
endif()

if(SKIP_IF_GPU)
  find_program(nvidia_smi nvidia-smi)
  if(nvidia_smi)
    execute_process(COMMAND ${nvidia_smi} -L RESULT_VARIABLE smi_rc OUTPUT_VARIABLE smi_out ERROR_QUIET)
    if(smi_rc EQUAL 0 AND smi_out MATCHES "GPU [0-9]")
      message("[  SKIPPED ] a GPU is present; this case checks the behaviour without one")
      return()
    endif()
  endif()
endif()

if(CLEAN_DIR)
  file(REMOVE_RECURSE "${CLEAN_DIR}")
endif()

if(DEFINED SETUP_ARGS)
  split_bars(setup "${SETUP_ARGS}")
  execute_process(COMMAND ${PROGRAM} ${setup} RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT rc EQUAL 0)
    set(ARGS "${SETUP_ARGS}")
    fail("the set-up run failed")
  endif()
endif()

split_bars(args "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
set(output "${stdout}${stderr}")

if(EXIT_CODE STREQUAL "NONZERO")
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    fail("expected a non-zero exit code")
  endif()
elseif(NOT rc STREQUAL "${EXIT_CODE}")
  fail("expected exit code ${EXIT_CODE}")
endif()

if(MATCH_COUNT)
  foreach(i RANGE 1 ${MATCH_COUNT})
    if(NOT output MATCHES "${MATCH_${i}}")
      fail("output does not match: ${MATCH_${i}}")
    endif()
  endforeach()
endif()

if(DEFINED NO_MATCH AND output MATCHES "${NO_MATCH}")
  fail("output matches what it must not: ${NO_MATCH}")
endif()

if(DEFINED STDOUT_NO_MATCH AND stdout MATCHES "${STDOUT_NO_MATCH}")
  fail("stdout matches what it must not: ${STDOUT_NO_MATCH}")
endif()

if(DEFINED EXACT_STDOUT)
  string(REPLACE "|" "\n" expected "${EXACT_STDOUT}\n")
  if(NOT stdout STREQUAL expected)
    fail("stdout is not exactly:\n${expected}")
  endif()
endif()

if(DEFINED EXPECT_FILES)
  split_bars(files "${EXPECT_FILES}")
  foreach(f ${files})
    if(NOT EXISTS "${f}")
      fail("missing file: ${f}")
    endif()
  endforeach()
endif()
