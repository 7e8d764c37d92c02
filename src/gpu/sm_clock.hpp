#pragma once
// The GPU's SM clock as NVML reports it, to tell throttled timing samples from good ones. NVML is
// loaded at run time (dlopen("libnvidia-ml.so.1")), so the harness builds and runs without it and
// without its headers.
#include <memory>
#include <optional>
#include <string>

namespace kda {

class sm_clock {
public:
  // The clock of CUDA device `cuda_device` (matched to NVML by PCI bus id), or null with `why`
  // filled when NVML or the device is not available.
  static std::unique_ptr<sm_clock> open(int cuda_device, std::string* why);

  // Owns a dlopen handle and one nvmlInit reference, each released exactly once: non-copyable.
  ~sm_clock();
  sm_clock(const sm_clock&) = delete;
  sm_clock& operator=(const sm_clock&) = delete;

  // The SM clock now, in MHz; nullopt if NVML fails to answer.
  std::optional<double> current_mhz() const;
  // The highest SM and memory clocks of the device (read once at open), in MHz.
  std::optional<double> max_mhz() const { return m_max_mhz; }
  std::optional<double> mem_max_mhz() const { return m_mem_max_mhz; }

private:
  sm_clock() = default;
  struct api; // the NVML entry points, resolved by name

  void* m_handle = nullptr;
  std::unique_ptr<api> m_api;
  void* m_device = nullptr; // nvmlDevice_t
  bool m_initialised = false;
  std::optional<double> m_max_mhz, m_mem_max_mhz;
};

} // namespace kda
