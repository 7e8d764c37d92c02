#include "check/row_check.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "check/fla_levels.hpp"
#include "kda_reference_inputs.hpp"

namespace kda {

std::vector<int> select_heads(const std::string& spec, int heads, bool is_list_hint) {
  std::vector<int> out;
  if (spec.empty() || spec == "all") {
    for (int h = 0; h < heads; ++h) out.push_back(h);
    return out;
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto pos = spec.find(',', start);
    parts.push_back(spec.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  const auto to_int = [&](const std::string& s) {
    const bool digits = !s.empty() && s.size() <= 9 &&
                        std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) {
      throw std::invalid_argument("--check-heads: '" + s + "' is not a head index or count (e.g. 4 or 0,17,42)");
    }
    return std::stoi(s);
  };
  if (parts.size() == 1 && !is_list_hint && to_int(parts[0]) == 0) return {0}; // "0": head 0 alone
  if (parts.size() == 1 && !is_list_hint) {
    // A single number N >= 1 is a count: N heads, evenly spaced, always including head 0.
    const int n = std::min(to_int(parts[0]), heads);
    for (int i = 0; i < n; ++i) out.push_back(static_cast<int>(static_cast<long long>(i) * heads / n));
    return out;
  }
  for (const auto& p : parts) {
    const int h = to_int(p);
    if (h >= heads) {
      throw std::invalid_argument("--check-heads: head " + p + " out of range (the row has " +
                                  std::to_string(heads) + " heads)");
    }
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ref::row_result reference_for(const host_inputs& in, const std::vector<int>& heads, bool backward, int threads,
                              const std::function<void(std::int64_t, std::int64_t)>& progress) {
  ref::row_options opt;
  opt.backward = backward;
  opt.threads = threads;
  opt.progress = progress;
  return ref::run_row(in.dims.cu_seqlens, heads, in.dims.k_dim, in.dims.v_dim,
                      [&](int s, int h) { return ref::make_head_problem(in, s, h); }, opt);
}

namespace {

std::string dA_log_cancellation_note(const std::vector<float>& got, const ref::row_result& ref) {
  // dA_log = sum dg g cancels: its rel-L2 alone can be large while the error is tiny on the scale
  // of the terms (docs/backward-design.md, "Accuracy"). Both figures over the checked heads.
  double err2 = 0.0, ref2 = 0.0, abs2 = 0.0;
  for (std::size_t hs = 0; hs < ref.heads.size(); ++hs) {
    const double d = static_cast<double>(got[static_cast<std::size_t>(ref.heads[hs])]) - ref.dA_log[hs];
    err2 += d * d;
    ref2 += ref.dA_log[hs] * ref.dA_log[hs];
    abs2 += ref.dA_log_abs_terms[hs] * ref.dA_log_abs_terms[hs];
  }
  if (!(abs2 > 0.0) || !(ref2 > 0.0)) return {};
  return fmt::format("err / sum|dg g| {:.1e}, cancellation x{:.0f}", std::sqrt(err2 / abs2), std::sqrt(abs2 / ref2));
}

} // namespace

std::vector<tensor_check> check_outputs(const host_inputs& in, const host_outputs& got,
                                        const ref::row_result& ref, decay_regime decay) {
  const std::int64_t T = in.dims.tokens();
  const int H = in.dims.heads, K = in.dims.k_dim, V = in.dims.v_dim;
  std::vector<tensor_check> out;
  const auto add = [&](const std::string& name, const std::vector<float>& g, const std::vector<double>& r,
                       std::int64_t rows, int width, out_dtype dt) {
    tensor_check c;
    c.error = compare_tensor(name, tensor_view{g.data(), rows, H, width}, r.data(), ref.heads, dt);
    c.fla_level = fla_level(name, decay).value_or(0.0);
    c.threshold = c.fla_level * target_factor(name);
    c.pass = c.error.finite && (c.threshold <= 0.0 || c.error.rel_l2 <= c.threshold);
    out.push_back(c);
  };
  add("o", got.o, ref.o, T, V, out_dtype::bf16);
  if (got.has_backward && ref.has_backward) {
    add("dq", got.dq, ref.dq, T, K, out_dtype::bf16);
    add("dk", got.dk, ref.dk, T, K, out_dtype::bf16);
    add("dv", got.dv, ref.dv, T, V, out_dtype::bf16);
    add("dbeta", got.dbeta, ref.dbeta, T, 1, out_dtype::bf16);
    add(in.gate == gate_form::raw ? "dx" : "dg", got.dgate, ref.dgate, T, K, out_dtype::fp32);
    if (in.gate == gate_form::raw) {
      add("dA_log", got.dA_log, ref.dA_log, 1, 1, out_dtype::fp32);
      if (out.back().error.finite && out.back().error.note.empty()) {
        out.back().error.note = dA_log_cancellation_note(got.dA_log, ref);
      }
      add("ddt_bias", got.ddt_bias, ref.ddt_bias, 1, K, out_dtype::fp32);
    }
  }
  return out;
}

} // namespace kda
