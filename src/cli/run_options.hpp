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
  bool no_timing = false;
  bool stages = false; // also time each kernel stage alone
  std::string dump_dir;
  std::string inputs_dir;
  std::string library;
  int threads = 0;
  scenario_options scenarios;
};

} // namespace kda::cli
