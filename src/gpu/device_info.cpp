#include "gpu/device_info.hpp"

#include <cstdio>
#include <fstream>
#include <regex>

#include <cuda_runtime_api.h>

namespace kda {
namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// The kernel driver's version as the driver itself reports it (Linux only); empty if unknown.
std::string nvidia_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  return std::getline(in, line) ? parse_nvidia_driver_version(line) : std::string{};
}

} // namespace

// The line's wording varies ("... Kernel Module  580.159.03 ...", "... Open Kernel Module for
// x86_64  580.159.04 ..."), so look for the version's shape rather than a position.
std::string parse_nvidia_driver_version(const std::string& proc_line) {
  static const std::regex version(R"((^|\s)(\d+\.\d+(\.\d+)*)(\s|$))");
  std::smatch m;
  return std::regex_search(proc_line, m, version) ? m[2].str() : std::string{};
}

std::string gpu_description::gpu_class() const {
  return short_name + " (sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + ", " +
         std::to_string(sm_count) + " SMs)";
}

std::optional<gpu_description> describe_gpu(int device, std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why) {
      *why = e != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")"
                              : std::string("no CUDA device found");
    }
    (void)cudaGetLastError();
    return std::nullopt;
  }
  if (device >= count) {
    if (why) *why = "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " present)";
    return std::nullopt;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    if (why) *why = "cudaGetDeviceProperties failed";
    return std::nullopt;
  }
  gpu_description g;
  g.name = prop.name;
  g.short_name = g.name.rfind("NVIDIA ", 0) == 0 ? g.name.substr(7) : g.name;
  g.cc_major = prop.major;
  g.cc_minor = prop.minor;
  g.sm_count = prop.multiProcessorCount;
  g.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  g.memory_bytes = prop.totalGlobalMem;
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) g.cuda_runtime = version_string(v);
  if (cudaDriverGetVersion(&v) == cudaSuccess) g.cuda_driver = version_string(v);
  g.driver = nvidia_driver_version();
  int clk = 0;
  if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, device) == cudaSuccess) g.sm_clock_max_mhz = clk / 1000;
  return g;
}

} // namespace kda
