#include "cli/run_context.hpp"

#include <chrono>
#include <ctime>

#include <unistd.h>

namespace kda::cli {

report::run_context make_context(const gpu_description& gpu, const kernel_library& lib, const timing_method& m,
                                 std::uint64_t seed, const std::string& command_line) {
  report::run_context c;
  c.date = report::iso8601_utc(std::chrono::system_clock::now());
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  c.host = host;
  c.command_line = command_line;
  c.seed = seed;
  c.gpu.name = gpu.name;
  c.gpu.gpu_class = gpu.gpu_class();
  c.gpu.arch = "sm_" + std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) + (gpu.cc_major == 9 ? "a" : "");
  c.gpu.sm_count = gpu.sm_count;
  c.gpu.driver = gpu.driver;
  c.gpu.cuda_runtime = gpu.cuda_runtime;
  c.gpu.nvcc = KDA_NVCC_VERSION;
  if (gpu.sm_clock_max_mhz > 0) c.gpu.clocks = report::gpu_clocks{static_cast<double>(gpu.sm_clock_max_mhz), {}, {}};
  c.kernel_library.path = lib.path();
  c.kernel_library.build_id = lib.build_id();
  const auto pos = c.kernel_library.build_id.find(" git ");
  if (pos != std::string::npos) {
    const auto end = c.kernel_library.build_id.find(' ', pos + 5);
    c.kernel_library.git_revision = c.kernel_library.build_id.substr(pos + 5, end - pos - 5);
  }
  c.harness.version = KDA_VERSION;
  c.harness.git_revision = KDA_GIT_REVISION;
  c.method.samples = m.samples;
  c.method.calls_per_sample = m.calls;
  c.method.warmup = m.warmup;
  c.method.l2 = m.cold_l2 ? report::l2_state::cold : report::l2_state::warm;
  c.method.launch = m.graph ? report::launch_mode::graph : report::launch_mode::eager;
  return c;
}

void record_clocks(report::run_context& c, const gpu_description& gpu, const sm_clock* clock,
                   const clock_tally& tally) {
  report::gpu_clocks k;
  if (c.gpu.clocks) k = *c.gpu.clocks;
  if (clock && clock->max_mhz()) {
    k.sm_max_mhz = clock->max_mhz();
  } else if (gpu.sm_clock_max_mhz > 0) {
    k.sm_max_mhz = gpu.sm_clock_max_mhz;
  }
  if (clock && clock->mem_max_mhz()) k.mem_max_mhz = clock->mem_max_mhz();
  if (tally.count > 0) {
    k.sm_observed_mhz = tally.sum / static_cast<double>(tally.count);
    k.sm_observed_min_mhz = tally.min;
  }
  if (k.sm_max_mhz || k.sm_observed_mhz || k.mem_max_mhz) c.gpu.clocks = k;
}

std::string default_out_path() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "results/%Y%m%d-%H%M%S.json", std::gmtime(&now));
  return buf;
}

} // namespace kda::cli
