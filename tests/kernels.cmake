# Host-side layout arithmetic of the kernel library (kernels/plan.cuh, the serial passes' copy
# offsets, the copy engine's swizzled box layout), no device needed.
kda_add_test(kernel_layout_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/saved_layout_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/kernels/serial_copies_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/kernels/box_layout_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/kernels/o_split_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/kernels/timeline_rows_test.cpp
  LIBS CUDA::toolkit)
target_include_directories(kernel_layout_tests PRIVATE ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/kernels/include)
