#include "check/accuracy.hpp"

#include <cmath>

#include "core/bf16.hpp"

namespace kda {
namespace {

double round_to(out_dtype dt, double x) {
  const float f = static_cast<float>(x);
  return dt == out_dtype::bf16 ? static_cast<double>(round_to_bf16(f)) : static_cast<double>(f);
}

std::string position(std::int64_t t, int h, int c) {
  return "token " + std::to_string(t) + ", head " + std::to_string(h) + ", col " + std::to_string(c);
}

} // namespace

bool all_finite(const tensor_view& t, const std::vector<int>& heads, std::string* where) {
  std::vector<int> hs = heads;
  if (hs.empty()) {
    for (int h = 0; h < t.heads; ++h) hs.push_back(h);
  }
  for (std::int64_t r = 0; r < t.tokens; ++r) {
    for (int h : hs) {
      const float* row = t.data + (r * t.heads + h) * t.width;
      for (int c = 0; c < t.width; ++c) {
        if (!std::isfinite(row[c])) {
          if (where) *where = (std::isnan(row[c]) ? "NaN at " : "Inf at ") + position(r, h, c);
          return false;
        }
      }
    }
  }
  return true;
}

tensor_error compare_tensor(const std::string& name, const tensor_view& got, const double* ref,
                            const std::vector<int>& heads, out_dtype dtype) {
  tensor_error e;
  e.tensor = name;
  const int hs_count = static_cast<int>(heads.size());
  double err2 = 0.0, ref2 = 0.0, floor2 = 0.0, max_err = 0.0, max_ref = 0.0;
  for (std::int64_t r = 0; r < got.tokens; ++r) {
    for (int hs = 0; hs < hs_count; ++hs) {
      const float* g = got.data + (r * got.heads + heads[hs]) * got.width;
      const double* x = ref + (r * hs_count + hs) * got.width;
      for (int c = 0; c < got.width; ++c) {
        if (e.finite && (!std::isfinite(g[c]) || !std::isfinite(x[c]))) {
          e.finite = false;
          e.note = std::string(std::isfinite(g[c]) ? "reference non-finite at " : "kernel non-finite at ") +
                   position(r, heads[hs], c);
        }
        const double d = static_cast<double>(g[c]) - x[c];
        const double f = round_to(dtype, x[c]) - x[c];
        err2 += d * d;
        ref2 += x[c] * x[c];
        floor2 += f * f;
        max_err = std::fmax(max_err, std::fabs(d));
        max_ref = std::fmax(max_ref, std::fabs(x[c]));
      }
    }
  }
  if (!e.finite) {
    e.rel_l2 = e.max_abs_rel = e.err_over_floor = std::nan("");
    return e;
  }
  const double nref = std::sqrt(ref2);
  e.rel_l2 = nref > 0 ? std::sqrt(err2) / nref : std::sqrt(err2);
  e.max_abs_rel = max_ref > 0 ? max_err / max_ref : max_err;
  e.floor_rel_l2 = nref > 0 ? std::sqrt(floor2) / nref : 0.0;
  e.err_over_floor = e.floor_rel_l2 > 0 ? e.rel_l2 / e.floor_rel_l2 : 0.0;
  return e;
}

} // namespace kda
