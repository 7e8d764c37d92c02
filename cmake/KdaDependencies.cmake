# Every third-party dependency, found once. All come from Debian packages installed by
# scripts/install-deps.sh (or, on the device, from its image / a carried extracted package:
# docs/device.md). Nothing is downloaded at configure or build time.
find_package(Threads REQUIRED)
find_package(CUDAToolkit REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 QUIET CONFIG)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)

# CLI11 2.1 from Debian ships a config; older layouts only the header.
if(NOT TARGET CLI11::CLI11)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()

# spdlog and fmt header-only: the binaries then need nothing beyond glibc, libstdc++ and the
# CUDA libraries, so a build made on a developer machine also runs on the device.
add_library(kda_logging INTERFACE)
get_target_property(_spdlog_inc spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(kda_logging INTERFACE ${_spdlog_inc})
target_compile_definitions(kda_logging INTERFACE SPDLOG_HEADER_ONLY SPDLOG_FMT_EXTERNAL)
if(TARGET fmt::fmt-header-only)
  target_link_libraries(kda_logging INTERFACE fmt::fmt-header-only Threads::Threads)
else()
  target_compile_definitions(kda_logging INTERFACE FMT_HEADER_ONLY)
  target_link_libraries(kda_logging INTERFACE fmt::fmt Threads::Threads)
endif()

if(KDA_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(KDA_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
