#pragma once
// What GPU we are on, for results context and table headings.
#include <optional>
#include <string>

namespace kda {

struct gpu_description {
  std::string name;       // "NVIDIA H200"
  std::string short_name; // "H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  std::string driver;       // "580.159" style, from the driver API version or NVML if present
  std::string cuda_runtime; // "13.0"
  std::string cuda_driver;  // "13.0" (highest CUDA the driver supports)
  int sm_clock_max_mhz = 0;

  // "H200 (sm_90, 132 SMs)": the key results are grouped by.
  std::string gpu_class() const;
};

// The driver version in a line of /proc/driver/nvidia/version: the first token shaped like a
// version (digits and dots), e.g. "580.159.04"; empty if none.
std::string parse_nvidia_driver_version(const std::string& proc_line);

// The device the harness runs on, or nullopt with `why` filled when there is none.
std::optional<gpu_description> describe_gpu(int device, std::string* why);

} // namespace kda
