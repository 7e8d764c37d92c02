# io: .npy files (golden files written by numpy in data/io/), dump directories and their loading.
kda_add_test(io_tests
  SOURCES io/npy_test.cpp io/dump_test.cpp io/dump_load_errors_test.cpp
  LIBS kda_io)
target_include_directories(io_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
