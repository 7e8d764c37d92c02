#include "cli/gpu_session.hpp"

#include <filesystem>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace kda::cli {

std::optional<gpu_session> open_gpu_session(const std::string& library, const std::string& before, const char* job) {
  std::string why;
  auto gpu = describe_gpu(0, &why);
  if (!gpu) {
    spdlog::error("{}: {} needs an NVIDIA GPU. Without one these work: kda-bench list, "
                  "kda-bench reference, kda-bench table, kda-bench compare",
                  why, job);
    return std::nullopt;
  }
  const std::string lib_path = library.empty() ? default_kernel_library_path() : library;
  if (lib_path.empty()) {
    spdlog::error("no kernel library is built (libkda.so not found next to kda-bench or in $KDA_LIBRARY); "
                  "build the `kda` target or pass --library PATH");
    return std::nullopt;
  }
  if (!before.empty() && !std::filesystem::is_regular_file(before)) {
    throw std::invalid_argument("--before " + before + ": no such file (build one with scripts/build-rev.sh REV)");
  }
  gpu_session s;
  s.gpu = std::move(*gpu);
  s.after = std::make_unique<kernel_library>(lib_path);
  spdlog::info("GPU {} | {}", s.gpu.gpu_class(), s.after->build_id());
  if (!before.empty()) {
    s.before = std::make_unique<kernel_library>(before);
    spdlog::info("BEFORE {} | {}", before, s.before->build_id());
  }
  s.clock = sm_clock::open(0, &why);
  if (!s.clock) spdlog::debug("SM clock not read ({}): samples are not checked for throttling", why);
  return s;
}

} // namespace kda::cli
