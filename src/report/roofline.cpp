#include "report/roofline.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace kda::report {
namespace {

// Pairs (i, j) of a c x c triangle: with the diagonal (i >= j) and without (i > j).
double tri_incl(double c) { return c * (c + 1) / 2; }
double tri_strict(double c) { return c * (c - 1) / 2; }

constexpr double k_bf16 = 2, k_fp32 = 4; // bytes per element

// Bytes of the saved set the forward writes on the `saved` path (kernels/plan.cuh), per (chunk of
// c rows, head): the state h entering the chunk (K x V, bf16) and v_new (c x V, fp32), then the
// intra-chunk results the backward would otherwise recompute: w, qg, qg's lo half (bwd_dh takes qg
// as hi + lo), kg (c x K each) and Aqk (c x c), all bf16, X = (I + Akk)^-1 (c x c) and
// exp(gamma_C) (K), fp32. A full chunk of 64: 2440 B per token and head (1024 for h and v_new,
// 1416 for the rest).
double saved_set_bytes(const problem_dims& d) {
  double b = 0;
  for (int s = 0; s < d.sequences(); ++s) {
    const std::int64_t len = d.seq_len(s);
    for (std::int64_t start = 0; start < len; start += k_roofline_chunk) {
      const double c = static_cast<double>(std::min<std::int64_t>(k_roofline_chunk, len - start));
      b += (double(d.k_dim) * d.v_dim + 4 * c * d.k_dim + c * c) * k_bf16;
      b += (c * d.v_dim + c * c + d.k_dim) * k_fp32;
    }
  }
  return b * d.heads;
}

// Inputs both ops read: q, k, v, beta (bf16), the gate input g or x (fp32), and on the raw form
// A_log [H] and dt_bias [H, K] (fp32).
double input_bytes(const problem_dims& d, gate_form gate) {
  const double th = double(d.tokens()) * d.heads;
  double b = th * ((2.0 * d.k_dim + d.v_dim + 1) * k_bf16 + d.k_dim * k_fp32);
  if (gate == gate_form::raw) b += d.heads * (1.0 + d.k_dim) * k_fp32;
  return b;
}

double fwd_bytes(const problem_dims& d, gate_form gate, bwd_path path) {
  const double th = double(d.tokens()) * d.heads;
  double b = input_bytes(d, gate) + th * d.v_dim * k_bf16; // + o
  if (path == bwd_path::saved) b += saved_set_bytes(d);    // written
  return b;
}

double bwd_bytes(const problem_dims& d, gate_form gate, bwd_path path) {
  const double th = double(d.tokens()) * d.heads;
  double b = input_bytes(d, gate) + th * d.v_dim * k_bf16;               // + do
  b += th * ((2.0 * d.k_dim + d.v_dim + 1) * k_bf16 + d.k_dim * k_fp32); // dq dk dv dbeta dgate
  if (gate == gate_form::raw) b += d.heads * (1.0 + d.k_dim) * k_fp32;   // dA_log ddt_bias
  if (path == bwd_path::saved) b += saved_set_bytes(d);                  // read
  return b;
}

double sum_macs(const std::vector<flop_term>& terms) {
  double m = 0;
  for (const auto& t : terms) m += t.macs;
  return m;
}

// FLOPs over every (chunk, head) of the row; chunks of one length share one count.
template <typename Terms> double row_flops(const problem_dims& d, Terms terms_for_chunk) {
  double flops = 0;
  for (int s = 0; s < d.sequences(); ++s) {
    const std::int64_t len = d.seq_len(s);
    const std::int64_t full = len / k_roofline_chunk, rest = len % k_roofline_chunk;
    if (full > 0) flops += double(full) * 2 * sum_macs(terms_for_chunk(k_roofline_chunk));
    if (rest > 0) flops += 2 * sum_macs(terms_for_chunk(static_cast<int>(rest)));
  }
  return flops * d.heads;
}

} // namespace

std::vector<flop_term> fwd_flop_terms(int c_rows, int k_dim, int v_dim) {
  const double c = c_rows, K = k_dim, V = v_dim;
  return {
      {"Akk = beta_i k_i . k_j exp(gamma_i - gamma_j), i > j", tri_strict(c) * K},
      {"(I + Akk) [w | u] = diag(beta) [k exp(gamma) | v], forward substitution",
       tri_strict(c) * (K + V)},
      {"Aqk = qs_i . k_j exp(gamma_i - gamma_j), i >= j", tri_incl(c) * K},
      {"v_new = u - w h", c * K * V},
      {"o = (qs exp(gamma)) h + ...", c * K * V},
      {"o = ... + Aqk v_new", tri_incl(c) * V},
      {"h_next = ... + (k exp(gamma_C - gamma))^T v_new", c * K * V},
  };
}

std::vector<flop_term> bwd_flop_terms(int c_rows, int k_dim, int v_dim, bwd_path path) {
  const double c = c_rows, K = k_dim, V = v_dim;
  std::vector<flop_term> t;
  const auto add = [&](std::string_view name, double macs) { t.push_back({name, macs}); };
  // Replay: recompute what the saved path reads from the saved set (intra-chunk results, h, v_new).
  if (path == bwd_path::replay) {
    add("recompute Akk, i > j", tri_strict(c) * K);
    add("recompute Tm = (I + Akk)^-1 diag(beta) (unit lower-triangular inverse)",
        c * (c - 1) * (c - 2) / 6);
    add("recompute w = Tm (k exp(gamma))", tri_incl(c) * K);
    add("recompute Aqk, i >= j", tri_incl(c) * K);
    add("recompute u = Tm v", tri_incl(c) * V);
    add("recompute v_new = u - w h", c * K * V);
    add("recompute h_next (state pass)", c * K * V);
  }
  // The gradient stages of kda-algorithm.md, numbered as there.
  add("1: dAqk = do v_new^T, i >= j", tri_incl(c) * V);
  add("1: dv_new = Aqk^T do", tri_incl(c) * V);
  add("2: dv_new += (k exp(gamma_C - gamma)) dh", c * K * V);
  add("2: dh_prev += (qs exp(gamma))^T do", c * K * V);
  add("2: dh_prev -= w^T dv_new", c * K * V);
  add("3: d(qs exp(gamma)) = do h^T", c * K * V);
  add("3: dw = -dv_new h^T", c * K * V);
  add("3: d(k exp(gamma_C - gamma)) = v_new dh^T", c * K * V);
  add("3: d(k exp(gamma)) = Tm^T dw", tri_incl(c) * K);
  add("3: dv = Tm^T du", tri_incl(c) * V);
  add("3: dTm = dw (k exp(gamma))^T + du v^T, lower", tri_incl(c) * (K + V));
  add("3: dAkk = -Tm^T dTm Tm^T (two triangular products)", 2 * c * (c + 1) * (c + 2) / 6);
  add("4: dq, dk from dAqk, i >= j", 2 * tri_incl(c) * K);
  add("4: dk (both factors) from dAkk, i > j", 2 * tri_strict(c) * K);
  return t;
}

op_work count_work(op_kind op, const problem_dims& d, gate_form gate, bwd_path path) {
  const int K = d.k_dim, V = d.v_dim;
  op_work fwd{fwd_bytes(d, gate, path),
              row_flops(d, [&](int c) { return fwd_flop_terms(c, K, V); })};
  op_work bwd{bwd_bytes(d, gate, path),
              row_flops(d, [&](int c) { return bwd_flop_terms(c, K, V, path); })};
  switch (op) {
  case op_kind::fwd: return fwd;
  case op_kind::bwd: return bwd;
  case op_kind::fwd_bwd: return {fwd.bytes + bwd.bytes, fwd.flops + bwd.flops};
  }
  return fwd;
}

roofline_point place_on_roofline(const op_work& w, const ceilings_info& c, double measured_ms) {
  if (!(c.copy_gb_per_s > 0) || !(c.bf16_gemm_tflop_per_s > 0) || !(measured_ms > 0)) {
    throw report_error(fmt::format("roofline: ceilings ({} GB/s, {} TFLOP/s) and time ({} ms) "
                                   "must be positive",
                                   c.copy_gb_per_s, c.bf16_gemm_tflop_per_s, measured_ms));
  }
  roofline_point p;
  const double seconds = measured_ms * 1e-3;
  p.achieved_gb_per_s = w.bytes / seconds * 1e-9;
  p.achieved_tflop_per_s = w.flops / seconds * 1e-12;
  p.memory_floor_ms = w.bytes / (c.copy_gb_per_s * 1e9) * 1e3;
  p.compute_floor_ms = w.flops / (c.bf16_gemm_tflop_per_s * 1e12) * 1e3;
  p.memory_bound = p.memory_floor_ms >= p.compute_floor_ms;
  p.floor_ms = std::max(p.memory_floor_ms, p.compute_floor_ms);
  p.fraction_of_floor = p.floor_ms / measured_ms;
  return p;
}

} // namespace kda::report
