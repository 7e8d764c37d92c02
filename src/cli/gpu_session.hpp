#pragma once
// What a GPU job (the main job, nightly) opens once: the device, the kernel library (and with
// --before the old build's), and the SM clock reader when NVML is there.
#include <memory>
#include <optional>
#include <string>

#include "gpu/device_info.hpp"
#include "gpu/kernel_library.hpp"
#include "gpu/sm_clock.hpp"

namespace kda::cli {

struct gpu_session {
  gpu_description gpu;
  std::unique_ptr<kernel_library> after;  // --library, or the default libkda.so
  std::unique_ptr<kernel_library> before; // --before, or null
  std::unique_ptr<sm_clock> clock;        // null without NVML
};

// nullopt after logging why when there is no CUDA device or no kernel library (the job then
// exits 3). Throws std::invalid_argument when `before` names no file, std::runtime_error when a
// library cannot be loaded.
// `job` names the job in the message ("the main job").
std::optional<gpu_session> open_gpu_session(const std::string& library, const std::string& before, const char* job);

} // namespace kda::cli
