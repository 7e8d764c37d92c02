#include "gpu/sm_clock.hpp"

#include <dlfcn.h>

#include <type_traits>

#include "gpu/cuda_check.hpp"

namespace kda {
namespace {

// The few NVML declarations we need, from nvml.h (stable C ABI since NVML 5): we do not require
// its headers at build time.
using nvml_return = int;   // nvmlReturn_t; NVML_SUCCESS = 0
using nvml_device = void*; // nvmlDevice_t, an opaque pointer
constexpr nvml_return k_nvml_success = 0;
constexpr int k_nvml_clock_sm = 1;  // NVML_CLOCK_SM
constexpr int k_nvml_clock_mem = 2; // NVML_CLOCK_MEM

} // namespace

struct sm_clock::api {
  nvml_return (*init)() = nullptr;                                 // nvmlInit_v2
  nvml_return (*shutdown)() = nullptr;                             // nvmlShutdown
  nvml_return (*by_index)(unsigned, nvml_device*) = nullptr;       // nvmlDeviceGetHandleByIndex_v2
  nvml_return (*by_pci)(const char*, nvml_device*) = nullptr;      // nvmlDeviceGetHandleByPciBusId_v2
  nvml_return (*clock)(nvml_device, int, unsigned*) = nullptr;     // nvmlDeviceGetClockInfo
  nvml_return (*max_clock)(nvml_device, int, unsigned*) = nullptr; // nvmlDeviceGetMaxClockInfo
};

std::unique_ptr<sm_clock> sm_clock::open(int cuda_device, std::string* why) {
  const auto fail = [&](std::string msg) -> std::unique_ptr<sm_clock> {
    if (why) *why = std::move(msg);
    return nullptr;
  };
  std::unique_ptr<sm_clock> c(new sm_clock);
  c->m_handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!c->m_handle) return fail("libnvidia-ml.so.1 cannot be loaded");
  c->m_api = std::make_unique<api>();
  api& a = *c->m_api;
  const auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(c->m_handle, name));
    return fn != nullptr;
  };
  if (!resolve(a.init, "nvmlInit_v2") || !resolve(a.shutdown, "nvmlShutdown") ||
      !resolve(a.by_index, "nvmlDeviceGetHandleByIndex_v2") || !resolve(a.clock, "nvmlDeviceGetClockInfo") ||
      !resolve(a.max_clock, "nvmlDeviceGetMaxClockInfo")) {
    return fail("libnvidia-ml.so.1 lacks an NVML function we need");
  }
  resolve(a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2"); // optional: index is the fallback
  if (a.init() != k_nvml_success) return fail("nvmlInit_v2 failed");
  c->m_initialised = true;

  // NVML numbers all GPUs of the machine, CUDA only the visible ones (CUDA_VISIBLE_DEVICES): the
  // PCI bus id names the same device in both.
  nvml_device dev = nullptr;
  char bus_id[32] = {};
  KDA_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device));
  if (!a.by_pci || a.by_pci(bus_id, &dev) != k_nvml_success) {
    if (a.by_index(static_cast<unsigned>(cuda_device), &dev) != k_nvml_success) {
      return fail(std::string("NVML does not know the device at PCI bus ") + bus_id);
    }
  }
  c->m_device = dev;
  unsigned mhz = 0;
  if (a.max_clock(dev, k_nvml_clock_sm, &mhz) == k_nvml_success && mhz > 0) c->m_max_mhz = mhz;
  if (a.max_clock(dev, k_nvml_clock_mem, &mhz) == k_nvml_success && mhz > 0) c->m_mem_max_mhz = mhz;
  if (!c->current_mhz()) return fail("nvmlDeviceGetClockInfo(NVML_CLOCK_SM) failed");
  return c;
}

sm_clock::~sm_clock() {
  if (m_initialised) m_api->shutdown();
  if (m_handle) dlclose(m_handle);
}

std::optional<double> sm_clock::current_mhz() const {
  unsigned mhz = 0;
  if (m_api->clock(static_cast<nvml_device>(m_device), k_nvml_clock_sm, &mhz) != k_nvml_success) {
    return std::nullopt;
  }
  return static_cast<double>(mhz);
}

} // namespace kda
