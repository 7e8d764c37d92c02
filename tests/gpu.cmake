# GPU tests (label gpu): need a CUDA device and libkda; skip with a message without one.
if(KDA_BUILD_KERNELS)
  kda_add_test(gpu_fwd_tests
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu/fwd_test.cpp
    LIBS kda_gpu kda_check
    LABELS gpu)
  add_dependencies(gpu_fwd_tests kda)
  kda_add_test(gpu_bwd_tests
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu/bwd_test.cpp
    LIBS kda_gpu kda_check
    LABELS gpu)
  add_dependencies(gpu_bwd_tests kda)
endif()
