# python: CPU tests of scripts/fla_peer.py (FLA peer; pure parts only, no torch/FLA/GPU),
# scripts/plot_results.py, scripts/ncu_phases.py (pure parts only, no cuobjdump/nvdisasm),
# scripts/timeline_summary.py and scripts/kernel_static.py (parsers only, no cuobjdump).
# They need a Python 3 with numpy and matplotlib (Debian: python3-numpy python3-matplotlib, in
# scripts/install-deps.sh). The system /usr/bin/python3 is preferred: a python3 earlier on PATH
# (pyenv, venv) often lacks numpy. -DKDA_PYTHON=/path/to/python overrides.
set(_kda_py_candidates)
if(KDA_PYTHON)
  list(APPEND _kda_py_candidates ${KDA_PYTHON})
endif()
if(EXISTS /usr/bin/python3)
  list(APPEND _kda_py_candidates /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  list(APPEND _kda_py_candidates ${Python3_EXECUTABLE})
endif()
list(REMOVE_DUPLICATES _kda_py_candidates)

set(_kda_py "")
foreach(py ${_kda_py_candidates})
  execute_process(COMMAND ${py} -c "import numpy, matplotlib"
                  RESULT_VARIABLE _kda_py_rc OUTPUT_QUIET ERROR_QUIET)
  if(_kda_py_rc EQUAL 0)
    set(_kda_py ${py})
    break()
  endif()
endforeach()

if(_kda_py)
  message(STATUS "python tests: using ${_kda_py}")
  foreach(t fla_peer plot_results ncu_phases timeline_summary kernel_static)
    add_test(NAME python.${t}
             COMMAND ${_kda_py} -m unittest -v tests/python/test_${t}.py
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(python.${t} PROPERTIES LABELS cpu ENVIRONMENT "MPLBACKEND=Agg")
  endforeach()
else()
  message(STATUS "python tests skipped: no Python 3 with numpy and matplotlib "
                 "(tried: ${_kda_py_candidates}; install python3-numpy python3-matplotlib)")
endif()
