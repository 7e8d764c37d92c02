#pragma once
// The context block of a results document (machine, build, method, clocks) and the default --out.
#include <cstdint>
#include <string>

#include "cli/row_timing.hpp"
#include "gpu/device_info.hpp"
#include "gpu/kernel_library.hpp"
#include "gpu/sm_clock.hpp"
#include "gpu/timing.hpp"
#include "report/results.hpp"

namespace kda::cli {

report::run_context make_context(const gpu_description& gpu, const kernel_library& lib, const timing_method& m,
                                 std::uint64_t seed, const std::string& command_line);

// context.gpu.clocks after the run: maximum clocks (NVML, else the CUDA attribute) and the mean
// and lowest SM clock read while timing.
void record_clocks(report::run_context& c, const gpu_description& gpu, const sm_clock* clock, const clock_tally& tally);

// "results/<UTC date>-<time>.json".
std::string default_out_path();

} // namespace kda::cli
