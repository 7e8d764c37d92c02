#pragma once
// Options of the main job (`kda-bench --rows ...`), filled by CLI11 in main.cpp.
#include <cstdint>
#include <string>
#include <vector>

namespace kda::cli {

struct scenario_options {
  std::string dir;                 // scenarios/ folder ("" = default)
  std::vector<std::string> files;  // --scenario-file, repeatable
};

struct run_options {
  std::string rows;
  std::string ops = "bwd,fwd+bwd";
  std::string decay;  // "" = normal for timing; normal,fast for --check
  std::uint64_t seed = 1;
  std::string out;    // "" = results/<date>-<time>.json
  bool force = false;
  bool check = false;
  std::string check_heads; // "" = all heads on rows of <= 8 heads, else 4 evenly spaced
  int repeat_check = 0;
  int samples = 15, calls = 20, warmup = 3;
  bool cold_l2 = false;          // flush L2 before each call, time each call alone
  bool graph = false;            // time replays of a CUDA graph of each sample's calls
  bool retake_throttled = false; // retake once a sample taken below 90 % of the max SM clock
  bool no_timing = false;
  bool stages = false;   // also time each kernel stage alone
  bool roofline = false; // measure the device's ceilings; print GB/s, TFLOP/s, % of floor
  std::string before;    // a second kernel library (the old build): interleaved A/B timing
  bool same_bits = false; // with --before: both builds once on the same inputs, every output compared bit for bit
  std::string dump_dir;
  std::string inputs_dir;
  std::string library;
  int threads = 0;
  scenario_options scenarios;
};

} // namespace kda::cli
