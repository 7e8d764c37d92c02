# Host-side code of the GPU layer that runs without a device (CPU tests).
kda_add_test(host_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/host/device_info_test.cpp
  LIBS kda_gpu)
