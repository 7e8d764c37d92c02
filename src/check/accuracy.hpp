#pragma once
// Accuracy of one output tensor against the FP64 reference (kda-algorithm.md, Accuracy measure):
//   rel_l2          = ||X - X_fp64|| / ||X_fp64||
//   max_abs_rel     = max |X - X_fp64| / max |X_fp64|
//   floor_rel_l2    = rel_l2 of X_fp64 rounded to the output dtype (the unavoidable error)
//   err_over_floor  = rel_l2 / floor_rel_l2
// Kernel outputs are packed [T, H, W]; reference outputs head-compact [T, Hs, W] for `heads`.
#include <cstdint>
#include <string>
#include <vector>

namespace kda {

enum class out_dtype { bf16, fp32 };

struct tensor_error {
  std::string tensor;
  double rel_l2 = 0.0;
  double max_abs_rel = 0.0;
  double floor_rel_l2 = 0.0;
  double err_over_floor = 0.0;
  bool finite = true;
  std::string note; // e.g. "NaN at token 17, head 3, col 5"
};

struct tensor_view {
  const float* data;  // packed kernel output
  std::int64_t tokens; // rows (T, or 1 for per-head tensors)
  int heads;
  int width;           // K, V or 1
};

tensor_error compare_tensor(const std::string& name, const tensor_view& got, const double* ref,
                            const std::vector<int>& heads, out_dtype dtype);

// First non-finite element of a packed tensor, restricted to `heads` (all heads if empty);
// returns false and fills `where` if one exists.
bool all_finite(const tensor_view& t, const std::vector<int>& heads, std::string* where);

} // namespace kda
