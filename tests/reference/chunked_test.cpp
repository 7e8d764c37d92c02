// The chunked FP64 forward and backward (kda_reference_chunked.hpp) against the token recurrence,
// which is the definition: outputs and every gradient to 1e-12 relative, and the stage-by-stage
// intermediates against quantities the recurrence yields independently (states at chunk
// boundaries, the state gradient there, v_new = beta .* e).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kda_reference.hpp"
#include "kda_reference_chunked.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

constexpr double k_tolerance = 1e-12;      // chunked vs recurrence
constexpr double k_pair_tolerance = 1e-13; // dgamma with vs without the Aqk diagonal pair

// ||a - b|| / ||b|| (||a - b|| when b is zero).
template <typename A, typename B>
double rel(const A& a, const B& b) {
  const double diff = (a - b).norm(), ref = b.norm();
  return ref > 0.0 ? diff / ref : diff;
}

double rel(double a, double b) {
  return b != 0.0 ? std::abs(a - b) / std::abs(b) : std::abs(a - b);
}

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

// Rows [t0, t1) of every per-token tensor of p, with the given initial state.
head_problem slice(const head_problem& p, Eigen::Index t0, Eigen::Index t1, const mat& S0) {
  head_problem s = p;
  const Eigen::Index n = t1 - t0;
  s.q = p.q.middleRows(t0, n);
  s.k = p.k.middleRows(t0, n);
  s.v = p.v.middleRows(t0, n);
  s.beta = p.beta.segment(t0, n);
  s.gate_in = p.gate_in.middleRows(t0, n);
  s.d_o = p.d_o.middleRows(t0, n);
  s.S0 = S0;
  return s;
}

mat zeros_if_empty(const mat& m, Eigen::Index rows, Eigen::Index cols) {
  return m.size() != 0 ? m : mat::Zero(rows, cols);
}

// ---- chunked vs recurrence -----------------------------------------------------------------

// o, S_final and every gradient of the chunked algorithm against the recurrence's; records the
// errors as test properties (rel_<tensor>, in the XML output).
void expect_matches_recurrence(const head_problem& p) {
  using ::testing::Test;
  const head_results want = forward_backward(p);
  const head_results got = forward_backward_chunked(p);

  struct compared {
    const char* name;
    double err;
  };
  const head_gradients& g = got.gradients;
  const head_gradients& r = want.gradients;
  std::vector<compared> errs = {
      {"o", rel(got.outputs.o, want.outputs.o)},
      {"S_final", rel(got.outputs.S_final, want.outputs.S_final)},
      {"dq", rel(g.dq, r.dq)},
      {"dk", rel(g.dk, r.dk)},
      {"dv", rel(g.dv, r.dv)},
      {"dbeta", rel(g.dbeta, r.dbeta)},
      {p.gate == gate_form::raw ? "dx" : "dg", rel(g.dgate, r.dgate)},
      {"dS0", rel(g.dS0, r.dS0)},
  };
  if (p.gate == gate_form::raw) {
    // dA_log = sum_{t,k} dg g is one scalar that may cancel (sum |dg g| / |dA_log| reaches 1e3 at
    // fast decay); both sides sum in the same order, so its error is that of dg times that
    // condition number. Measured against the terms' magnitude: |delta| / sum |dg g|.
    const double terms = r.dA_log_abs_terms, delta = std::abs(g.dA_log - r.dA_log);
    errs.push_back({"dA_log", terms > 0.0 ? delta / terms : delta});
    Test::RecordProperty("rel_dA_log_plain", sci(rel(g.dA_log, r.dA_log)));
    errs.push_back({"ddt_bias", rel(g.ddt_bias, r.ddt_bias)});
  } else {
    EXPECT_EQ(g.dA_log, 0.0);
    EXPECT_TRUE(g.ddt_bias.isZero(0.0));
  }
  double worst = 0.0;
  for (const compared& c : errs) {
    EXPECT_LE(c.err, k_tolerance) << c.name;
    worst = std::max(worst, c.err);
    Test::RecordProperty(std::string("rel_") + c.name, sci(c.err));
  }
  Test::RecordProperty("rel_max", sci(worst));

  // The forward alone gives the same bits as the forward of forward_backward_chunked.
  const head_outputs fwd = forward_chunked(p);
  EXPECT_TRUE(fwd.o == got.outputs.o);
  EXPECT_TRUE(fwd.S_final == got.outputs.S_final);
}

class reference_chunked : public ::testing::TestWithParam<random_case> {};

TEST_P(reference_chunked, outputs_and_every_gradient_match) {
  expect_matches_recurrence(testing::random_head_problem(GetParam()));
}

// Lengths 1, one chunk minus one, one chunk, one chunk plus one row, two chunks plus two rows,
// and four chunks with a short last one; every gate form, L2 norm mode, decay regime, with and
// without S0 / dS_final.
std::vector<random_case> recurrence_cases() {
  std::vector<random_case> cases;
  std::uint64_t seed = 500;
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    for (const l2n_mode l2n : {l2n_mode::off, l2n_mode::fused}) {
      for (const decay_regime decay : {decay_regime::normal, decay_regime::fast}) {
        for (const bool with_state : {false, true}) {
          for (const int T : {1, 63, 64, 65, 130, 200}) {
            random_case c{gate, l2n, decay, with_state, T, 8, 6, seed += 11};
            if (cases.size() % 3 == 1) { // some cases wider, K != V both ways
              c.K = 16;
              c.V = 8;
            } else if (cases.size() % 3 == 2) {
              c.K = 6;
              c.V = 12;
            }
            cases.push_back(c);
          }
        }
      }
    }
  }
  // The production head size, once per decay regime.
  cases.push_back(
      {gate_form::raw, l2n_mode::fused, decay_regime::normal, true, 130, 128, 128, 901});
  cases.push_back({gate_form::raw, l2n_mode::fused, decay_regime::fast, true, 130, 128, 128, 902});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(cases, reference_chunked, ::testing::ValuesIn(recurrence_cases()),
                         [](const auto& info) { return testing::case_name(info.param); });

// Degenerate and extreme problems: beta = 0 (X = I, pure decay), beta = 1, g = 0 (no decay: every
// diagonal sub-block factors), a raw gate at +-800 (g ~ -1e4 in one token: the pair-by-pair path,
// exp(gamma) underflows), K = V = 1, and three whole chunks.
TEST(reference_dA_log_terms, the_sum_of_absolute_terms_of_dA_log) {
  // head_gradients::dA_log_abs_terms = sum_{t,k} |dg g|, dg from a g-form backward of the same
  // problem; dA_log = sum dg g can be far smaller (cancellation) but never larger.
  testing::random_case c;
  c.gate = gate_form::raw;
  c.decay = decay_regime::fast;
  c.T = 130;
  c.seed = 77;
  const head_problem p = testing::random_head_problem(c);
  head_problem pg = p;
  pg.gate = gate_form::g;
  pg.gate_in = log_gate(p);
  const double want = backward(pg).dgate.cwiseProduct(pg.gate_in).cwiseAbs().sum();
  const head_gradients g = backward(p);
  EXPECT_NEAR(g.dA_log_abs_terms, want, 1e-12 * want);
  EXPECT_GE(g.dA_log_abs_terms, std::abs(g.dA_log));
  EXPECT_GT(g.dA_log_abs_terms, 0.0);
}

TEST(reference_chunked_edges, match_the_recurrence) {
  const auto base = [](gate_form gate, int T, int K, int V, std::uint64_t seed) {
    return testing::random_head_problem(
        {gate, l2n_mode::fused, decay_regime::normal, true, T, K, V, seed});
  };
  {
    SCOPED_TRACE("beta = 0");
    head_problem p = base(gate_form::raw, 130, 8, 6, 801);
    p.beta.setZero();
    expect_matches_recurrence(p);
  }
  {
    SCOPED_TRACE("beta = 1");
    head_problem p = base(gate_form::g, 130, 8, 6, 802);
    p.beta.setOnes();
    expect_matches_recurrence(p);
  }
  {
    SCOPED_TRACE("g = 0");
    head_problem p = base(gate_form::g, 130, 8, 6, 803);
    p.gate_in.setZero();
    expect_matches_recurrence(p);
  }
  {
    SCOPED_TRACE("raw gate at +-800");
    head_problem p = base(gate_form::raw, 70, 8, 6, 804);
    p.gate_in(5, 0) = 800.0;
    p.gate_in(66, 3) = 800.0;
    p.gate_in(20, 1) = -800.0;
    expect_matches_recurrence(p);
  }
  {
    SCOPED_TRACE("K = V = 1");
    expect_matches_recurrence(base(gate_form::raw, 100, 1, 1, 805));
  }
  {
    SCOPED_TRACE("three whole chunks");
    expect_matches_recurrence(base(gate_form::g, 3 * k_chunk, 8, 6, 806));
  }
}

TEST(reference_chunked_edges, non_finite_inputs_reach_the_outputs) {
  head_problem p = testing::random_head_problem(
      {gate_form::g, l2n_mode::off, decay_regime::normal, false, 10, 8, 6, 14});
  p.v(3, 2) = std::numeric_limits<double>::quiet_NaN();
  const head_results r = forward_backward_chunked(p);
  EXPECT_FALSE(r.outputs.o.allFinite());
  EXPECT_FALSE(r.gradients.dk.allFinite());
}

// ---- the stage oracle ----------------------------------------------------------------------

class reference_chunked_stages : public ::testing::TestWithParam<random_case> {};

TEST_P(reference_chunked_stages, chunks_cover_the_sequence) {
  const head_problem p = testing::random_head_problem(GetParam());
  const chunked_trace tr = trace_chunked(p);
  const Eigen::Index T = p.q.rows();
  ASSERT_EQ(static_cast<Eigen::Index>(tr.chunks.size()), (T + k_chunk - 1) / k_chunk);
  Eigen::Index next = 0;
  for (const chunk_trace& c : tr.chunks) {
    EXPECT_EQ(c.start, next);
    EXPECT_EQ(c.len, std::min<Eigen::Index>(k_chunk, T - c.start));
    EXPECT_EQ(c.gamma.rows(), c.len);
    EXPECT_EQ(c.v_new.rows(), c.len);
    EXPECT_EQ(c.dgamma.rows(), c.len);
    next += c.len;
  }
  EXPECT_EQ(next, T);

  // The trace's results are forward_backward_chunked()'s, bit for bit.
  const head_results plain = forward_backward_chunked(p);
  EXPECT_TRUE(tr.results.outputs.o == plain.outputs.o);
  EXPECT_TRUE(tr.results.gradients.dgate == plain.gradients.dgate);
  EXPECT_TRUE(tr.results.gradients.dk == plain.gradients.dk);
}

TEST_P(reference_chunked_stages, masks_and_triangular_inverse) {
  const chunked_trace tr = trace_chunked(testing::random_head_problem(GetParam()));
  for (const chunk_trace& c : tr.chunks) {
    const mat I = mat::Identity(c.len, c.len);
    EXPECT_TRUE(mat(c.Akk.triangularView<Eigen::Upper>()).isZero(0.0));
    EXPECT_TRUE(mat(c.dAkk.triangularView<Eigen::Upper>()).isZero(0.0));
    EXPECT_TRUE(mat(c.Aqk.triangularView<Eigen::StrictlyUpper>()).isZero(0.0));
    EXPECT_TRUE(mat(c.dAqk.triangularView<Eigen::StrictlyUpper>()).isZero(0.0));
    EXPECT_LE((c.X * (I + c.Akk) - I).norm(), 1e-12);
    EXPECT_TRUE(c.gamma_C == c.gamma.bottomRows(1));
  }
}

// h entering each chunk is the recurrence's state after c.start tokens; v_new = beta .* e, where
// e_t = v_t - St~^T k_t is the recurrence's error term (S_t = diag(e^gamma_t) h + sum_j
// (k_j .* e^(gamma_t - gamma_j)) (beta_j e_j)^T inside the chunk).
TEST_P(reference_chunked_stages, saved_set_matches_the_recurrence) {
  const head_problem p = testing::random_head_problem(GetParam());
  const chunked_trace tr = trace_chunked(p);
  const Eigen::Index K = p.q.cols(), V = p.v.cols();
  const mat S0 = zeros_if_empty(p.S0, K, V);
  const mat g = log_gate(p);
  for (const chunk_trace& c : tr.chunks) {
    mat S = c.start == 0 ? S0 : forward(slice(p, 0, c.start, S0)).S_final;
    EXPECT_LE(rel(c.h, S), k_tolerance) << "h of the chunk at " << c.start;

    // e_t from the token recurrence, with k' as the chunk uses it.
    const head_problem chunk = slice(p, c.start, c.start + c.len, S);
    mat k = chunk.k;
    if (p.l2n == l2n_mode::fused) {
      for (Eigen::Index t = 0; t < k.rows(); ++t)
        k.row(t) /= std::sqrt(k.row(t).squaredNorm() + k_l2n_eps);
    }
    mat beta_e(c.len, V);
    for (Eigen::Index t = 0; t < c.len; ++t) {
      S = g.row(c.start + t).array().exp().matrix().transpose().asDiagonal() * S;
      const Eigen::RowVectorXd e = chunk.v.row(t) - k.row(t) * S;
      S += chunk.beta(t) * k.row(t).transpose() * e;
      beta_e.row(t) = chunk.beta(t) * e;
    }
    EXPECT_LE(rel(c.v_new, beta_e), k_tolerance) << "v_new of the chunk at " << c.start;
  }
}

// dh_next of each chunk is dL/d(state after the chunk): the dS0 of the recurrence's backward on
// the rest of the sequence, started from the recurrence's state there.
TEST_P(reference_chunked_stages, state_gradients_match_the_recurrence) {
  const head_problem p = testing::random_head_problem(GetParam());
  const chunked_trace tr = trace_chunked(p);
  const Eigen::Index T = p.q.rows(), K = p.q.cols(), V = p.v.cols();
  const mat S0 = zeros_if_empty(p.S0, K, V);
  for (std::size_t n = 0; n < tr.chunks.size(); ++n) {
    const chunk_trace& c = tr.chunks[n];
    const Eigen::Index end = c.start + c.len;
    if (end == T) {
      EXPECT_TRUE(c.dh_next == zeros_if_empty(p.dS_final, K, V));
    } else {
      const mat S_end = forward(slice(p, 0, end, S0)).S_final;
      const mat want = backward(slice(p, end, T, S_end)).dS0;
      EXPECT_LE(rel(c.dh_next, want), k_tolerance) << "dh_next of the chunk at " << c.start;
      EXPECT_TRUE(tr.chunks[n + 1].dh == c.dh_next);
    }
  }
  EXPECT_TRUE(tr.chunks.front().dh == tr.results.gradients.dS0);
}

// A pair of dgamma terms that cancels analytically: dgamma with both members formed (`formed`)
// equals dgamma with both left out (the default) to FP64 rounding, in every chunk, and so does dg
// (dx). member(chunk) is one member of the pair; it must not be negligible next to dgamma, or the
// comparison would mean nothing.
template <typename Member>
void expect_pair_cancels(const head_problem& p, const chunked_options& formed_options,
                         const Member& member) {
  const chunked_trace kept = trace_chunked(p);
  const chunked_trace formed = trace_chunked(p, formed_options);
  double member_norm2 = 0.0, dgamma_norm2 = 0.0;
  for (std::size_t n = 0; n < kept.chunks.size(); ++n) {
    const chunk_trace& a = kept.chunks[n];
    const chunk_trace& b = formed.chunks[n];
    const mat m = member(a);
    // Relative to the larger of dgamma and the member: dgamma is exactly 0 when nothing but the
    // pair reaches it (T = 1, S0 = 0), where the formed pair leaves its rounding residue.
    const double scale = std::max(b.dgamma.norm(), m.norm());
    EXPECT_LE((a.dgamma - b.dgamma).norm(), k_pair_tolerance * scale) << "chunk at " << a.start;
    member_norm2 += m.squaredNorm();
    dgamma_norm2 += a.dgamma.squaredNorm();
  }
  EXPECT_GE(std::sqrt(member_norm2), 1e-3 * std::sqrt(dgamma_norm2)) << "the pair is negligible";
  const head_gradients& ga = kept.results.gradients;
  const head_gradients& gb = formed.results.gradients;
  const double dg_scale = std::max(gb.dgate.norm(), std::sqrt(member_norm2));
  EXPECT_LE((ga.dgate - gb.dgate).norm(), k_pair_tolerance * dg_scale);
  EXPECT_TRUE(ga.dq == gb.dq); // the pairs touch dgamma only
  EXPECT_TRUE(ga.dk == gb.dk);
}

// Aqk's diagonal: +qs_i .* k_i dAqk_ii through the q side, -k_i .* qs_i dAqk_ii through the k side.
TEST_P(reference_chunked_stages, aqk_diagonal_pair_cancels) {
  const head_problem p = testing::random_head_problem(GetParam());
  ASSERT_EQ(p.l2n, l2n_mode::off); // so qs = scale q and k' = k below
  const mat qs = (p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(double(p.q.cols()))) * p.q;
  chunked_options formed;
  formed.aqk_diagonal_pair_in_dgamma = true;
  expect_pair_cancels(p, formed, [&](const chunk_trace& c) -> mat {
    return c.dAqk.diagonal().asDiagonal() *
           qs.middleRows(c.start, c.len).cwiseProduct(p.k.middleRows(c.start, c.len));
  });
}

// kgC's last row (= k): -dkgC .* kgC on that row, and the same term's share of dgamma_C.
TEST_P(reference_chunked_stages, kgC_last_row_pair_cancels) {
  const head_problem p = testing::random_head_problem(GetParam());
  chunked_options formed;
  formed.kgC_last_row_pair_in_dgamma = true;
  expect_pair_cancels(p, formed, [](const chunk_trace& c) -> mat {
    return c.dkgC.bottomRows(1).cwiseProduct(c.kgC.bottomRows(1));
  });
}

// The analysis options (bench/rounding_analysis): a tile raised for the reverse state pass alone
// (bwd_only) leaves the forward as it was, bit for bit, and moves the gradients that pass feeds.
TEST_P(reference_chunked_stages, bwd_only_storage_leaves_the_forward) {
  const head_problem p = testing::random_head_problem(GetParam());
  if (p.q.rows() <= 64) GTEST_SKIP() << "one chunk: the reverse pass's qg^T do reaches no token's gradient";
  chunked_options narrow;
  narrow.intra_tiles = chunked_options::storage::bf16;
  chunked_options raised = narrow;
  raised.bwd_only.qg = chunked_options::storage::tf32;
  const head_results a = trace_chunked(p, narrow).results, b = trace_chunked(p, raised).results;
  EXPECT_EQ(a.outputs.o, b.outputs.o);
  EXPECT_EQ(a.outputs.S_final, b.outputs.S_final);
  EXPECT_EQ(a.gradients.dq, b.gradients.dq) << "dq does not depend on the reverse pass's qg";
  EXPECT_GT((a.gradients.dk - b.gradients.dk).norm(), 0.0);
  EXPECT_GT((a.gradients.dgate - b.gradients.dgate).norm(), 0.0);
}

std::vector<random_case> stage_cases() {
  return {
      {gate_form::g, l2n_mode::off, decay_regime::normal, false, 1, 8, 6, 701},
      {gate_form::g, l2n_mode::off, decay_regime::normal, true, 130, 8, 6, 702},
      {gate_form::raw, l2n_mode::off, decay_regime::fast, true, 200, 16, 8, 703},
      {gate_form::raw, l2n_mode::off, decay_regime::normal, false, 65, 6, 12, 704},
  };
}

INSTANTIATE_TEST_SUITE_P(cases, reference_chunked_stages, ::testing::ValuesIn(stage_cases()),
                         [](const auto& info) { return testing::case_name(info.param); });

TEST(reference_chunked_shapes, rejected_like_the_recurrence) {
  head_problem p = testing::random_head_problem({});
  p.beta.resize(3);
  EXPECT_THROW(forward_chunked(p), std::invalid_argument);
  EXPECT_THROW(forward_backward_chunked(p), std::invalid_argument);
  p = testing::random_head_problem({});
  p.d_o.resize(0, 0);
  EXPECT_NO_THROW(forward_chunked(p)); // the forward does not need d_o
  EXPECT_THROW(backward_chunked(p), std::invalid_argument);
}

} // namespace
} // namespace kda::ref
