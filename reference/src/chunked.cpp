// Chunked KDA forward and backward of one (sequence, head) in FP64, stage by stage as the GPU
// kernels run them (kda-algorithm.md, "Chunked forward" / "Chunked backward";
// docs/backward-design.md has the derivation, the stage plan and the cancelling pairs).
//
//   stage 0  intra forward, per chunk: gamma, Akk, X, Tm, kgp, kgC, qg, w, u, Aqk
//   forward  state pass, sequential: v_new, o, h_next      -> saved set: h and v_new per chunk
//   stage 1+2 reverse state pass, sequential: dv_new, dh
//   stage 3  per chunk: dqg, dAqk, dkgC, gamma_C terms, WY backward (dv, dkgp, dbeta, dAkk)
//   stage 4  per chunk, GLM intra: dAqk and dAkk into dqs, dk, dbeta, dgamma; elementwise terms
//   stage 5  dgamma_C into the last row, dg = reverse cumsum of dgamma; pre-processing chains
//
// Exponent safety as on the GPU: exp sees gamma_i - gamma_j with i >= j, gamma_C - gamma and gamma
// itself (all <= 0 for g <= 0), and inside a diagonal sub-block gamma_n - gamma_j bounded by
// k_span_limit; never exp(-gamma).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/bf16.hpp"
#include "kda_reference_chunked.hpp"
#include "preprocess.hpp"

namespace kda::ref {
namespace {

using detail::prepared_inputs;
using Eigen::Index;
using row_vec = Eigen::RowVectorXd;

// ---- chunks --------------------------------------------------------------------------------

// One chunk's rows of what the algorithm consumes (after the pre-processing).
struct chunk_inputs {
  Index start = 0, len = 0;
  mat qs, k, v, g, d_o; // len x K (qs, k: k' when fused, g) or len x V (v, d_o)
  vec beta;             // len
};

std::vector<chunk_inputs> split_into_chunks(const head_problem& p, const prepared_inputs& pp,
                                            bool with_d_o) {
  const Index T = p.q.rows();
  std::vector<chunk_inputs> chunks;
  chunks.reserve((T + k_chunk - 1) / k_chunk);
  for (Index start = 0; start < T; start += k_chunk) {
    chunk_inputs c;
    c.start = start;
    c.len = std::min<Index>(k_chunk, T - start);
    c.qs = pp.qs.middleRows(start, c.len);
    c.k = pp.k_prime.middleRows(start, c.len);
    c.v = p.v.middleRows(start, c.len);
    c.g = pp.g.middleRows(start, c.len);
    c.beta = p.beta.segment(start, c.len);
    if (with_d_o) c.d_o = p.d_o.middleRows(start, c.len);
    chunks.push_back(std::move(c));
  }
  return chunks;
}

// ---- masks and the cumulative gate ---------------------------------------------------------

mat strictly_lower(const mat& m) { return m.triangularView<Eigen::StrictlyLower>(); }
mat lower(const mat& m) { return m.triangularView<Eigen::Lower>(); }

// gamma_i = sum_{s <= i} g_s, row by row in ascending order.
mat cumsum_rows(const mat& g) {
  mat gamma = g;
  for (Index i = 1; i < gamma.rows(); ++i) gamma.row(i) += gamma.row(i - 1);
  return gamma;
}

// ---- decay between rows, by sub-blocks --------------------------------------------------------
//
// Pair products P_ij = sum_d a_id b_jd exp(gamma_id - gamma_jd) (i >= j) and their backward run by
// sub-blocks of 16 rows, as on the GPU (docs/kernels.md, "Exponent safety"). For row block I with
// reference row n (its first row) and column block J <= I:
//   exp(gamma_i - gamma_j) = exp(gamma_i - gamma_n) * exp(gamma_n - gamma_j)   (left_i * right_j)
// so each block is one matrix product of rescaled operands. Off-diagonal blocks (J < I): both
// factors are <= 1. Diagonal blocks: right_j >= 1, up to exp(span of the block); when the span
// exceeds k_span_limit the block is computed pair by pair from exp(gamma_i - gamma_j) instead.

constexpr Index k_sub_block = 16;
constexpr double k_span_limit = 300.0; // FP64 (exp(300) ~ 2e130)
// The GPU's limit (kernels/common/gate.cuh, k_span_limit): used where its TF32 operands are
// emulated (chunked_options::tf32_pair_products), which would overflow FP32 beyond it.
constexpr double k_gpu_span_limit = 64.0;

struct block {
  Index start = 0, len = 0;
};

std::vector<block> sub_blocks(Index rows) {
  std::vector<block> blocks;
  for (Index s = 0; s < rows; s += k_sub_block)
    blocks.push_back({s, std::min(k_sub_block, rows - s)});
  return blocks;
}

// left = exp(gamma_I - gamma_n), right = exp(gamma_n - gamma_J), n = I's first row.
struct decay_factors {
  mat left;  // |I| x K
  mat right; // |J| x K
};

decay_factors factors(const mat& gamma, block I, block J) {
  const auto gamma_n = gamma.row(I.start);
  return {(gamma.middleRows(I.start, I.len).rowwise() - gamma_n).array().exp().matrix(),
          ((-gamma.middleRows(J.start, J.len)).rowwise() + gamma_n).array().exp().matrix()};
}

// A diagonal block factors safely when its gamma span stays within `limit`.
bool factorable(const mat& gamma, block I, double limit = k_span_limit) {
  const auto gamma_n = gamma.row(I.start);
  return (gamma.middleRows(I.start, I.len).rowwise() - gamma_n).cwiseAbs().maxCoeff() <= limit;
}

// E(j - j0, d) = exp(gamma_id - gamma_jd) for the rows j0 <= j < i: every exponent <= 0.
mat decay_to_row(const mat& gamma, Index i, Index j0) {
  return ((-gamma.middleRows(j0, i - j0)).rowwise() + gamma.row(i)).array().exp().matrix();
}

// P_ij for j < i (and j == i, where the decay is 1, when `with_diagonal`); 0 elsewhere.
mat decayed_pair_product(const mat& a, const mat& b, const mat& gamma, bool with_diagonal) {
  const Index n = a.rows();
  mat P = mat::Zero(n, n);
  const std::vector<block> blocks = sub_blocks(n);
  for (const block I : blocks) {
    for (const block J : blocks) {
      if (J.start > I.start) break;
      const bool diagonal_block = J.start == I.start;
      if (diagonal_block && !factorable(gamma, I)) { // pair by pair, strictly lower
        for (Index i = I.start + 1; i < I.start + I.len; ++i) {
          const mat E = decay_to_row(gamma, i, I.start);
          P.row(i).segment(I.start, i - I.start).noalias() =
              (b.middleRows(I.start, i - I.start).cwiseProduct(E) * a.row(i).transpose())
                  .transpose();
        }
        continue;
      }
      const decay_factors f = factors(gamma, I, J);
      const mat P_IJ = a.middleRows(I.start, I.len).cwiseProduct(f.left) *
                       b.middleRows(J.start, J.len).cwiseProduct(f.right).transpose();
      P.block(I.start, J.start, I.len, J.len) = diagonal_block ? strictly_lower(P_IJ) : P_IJ;
    }
  }
  if (with_diagonal) {
    for (Index i = 0; i < n; ++i) P(i, i) = a.row(i).dot(b.row(i));
  }
  return P;
}

// ---- stage 0: intra forward ----------------------------------------------------------------

struct intra_forward {
  mat gamma;                   // len x K
  row_vec gamma_C;             // K
  row_vec exp_gamma_C;         // K
  mat exp_gamma;               // len x K, exp(gamma)
  mat exp_gamma_C_minus_gamma; // len x K, exp(gamma_C - gamma)
  mat KK;                      // len x len, Akk without its beta_i row factor (i > j)
  mat Akk, X, Tm;              // len x len
  mat kgp, kgC, qg;            // len x K
  mat w;                       // len x K
  mat u;                       // len x V
  mat Aqk;                     // len x len
};

// X = (I + Akk)^-1: a unit lower triangular solve.
mat inverse_of_unit_lower(const mat& Akk) {
  const mat I_plus_Akk = mat::Identity(Akk.rows(), Akk.cols()) + Akk;
  return I_plus_Akk.triangularView<Eigen::UnitLower>().solve(mat::Identity(Akk.rows(), Akk.cols()));
}

intra_forward compute_intra(const chunk_inputs& c) {
  intra_forward f;
  f.gamma = cumsum_rows(c.g);
  f.gamma_C = f.gamma.row(c.len - 1);
  f.exp_gamma_C = f.gamma_C.array().exp().matrix();
  f.exp_gamma = f.gamma.array().exp().matrix();
  f.exp_gamma_C_minus_gamma = ((-f.gamma).rowwise() + f.gamma_C).array().exp().matrix();

  f.KK = decayed_pair_product(c.k, c.k, f.gamma, /*with_diagonal=*/false);
  f.Akk = c.beta.asDiagonal() * f.KK;
  f.X = inverse_of_unit_lower(f.Akk);
  f.Tm = f.X * c.beta.asDiagonal();

  f.kgp = c.k.cwiseProduct(f.exp_gamma);
  f.kgC = c.k.cwiseProduct(f.exp_gamma_C_minus_gamma);
  f.qg = c.qs.cwiseProduct(f.exp_gamma);
  f.w = f.Tm * f.kgp;
  f.u = f.Tm * c.v;
  f.Aqk = decayed_pair_product(c.qs, c.k, f.gamma, /*with_diagonal=*/true);
  return f;
}

// ---- forward state pass --------------------------------------------------------------------

mat v_new_of(const intra_forward& f, const mat& h) { return f.u - f.w * h; }

mat o_of(const intra_forward& f, const mat& h, const mat& v_new) {
  return f.qg * h + f.Aqk * v_new;
}

mat h_next_of(const intra_forward& f, const mat& h, const mat& v_new) {
  mat h_next = f.exp_gamma_C.transpose().asDiagonal() * h;
  h_next.noalias() += f.kgC.transpose() * v_new;
  return h_next;
}

// What the forward leaves for the backward (docs/kernels.md, "The saved set").
struct saved_set {
  std::vector<mat> h;     // K x V, the state entering each chunk
  std::vector<mat> v_new; // len x V
  // The same before the rounding to the forward's operand format (the FP32 state and
  // accumulators on the GPU): what a wider saved set would hold.
  std::vector<mat> h_unrounded, v_new_unrounded;
};

using storage = chunked_options::storage;

// x as the GPU would hold it in format f: fp32, bf16 (round to nearest even, 8 significant bits)
// or tf32 (round to nearest, ties away, 11 significant bits, as cvt.rna.tf32.f32).
mat stored_as(storage f, const mat& x) {
  if (f == storage::exact) return x;
  if (f == storage::fp32) return x.cast<float>().cast<double>();
  return x.unaryExpr([f](double v) {
    const float x32 = static_cast<float>(v);
    if (f == storage::bf16) return static_cast<double>(kda::round_to_bf16(x32));
    std::uint32_t u = 0;
    std::memcpy(&u, &x32, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu;
    float r = 0.f;
    std::memcpy(&r, &u, sizeof r);
    return static_cast<double>(r);
  });
}

// The intra tiles as the state passes read them (chunked_options::intra_tiles).
std::vector<intra_forward> as_state_pass_reads(const std::vector<intra_forward>& intra, const chunked_options& o) {
  std::vector<intra_forward> r = intra;
  const auto of = [&](const std::optional<storage>& one) { return one.value_or(o.intra_tiles); };
  for (intra_forward& f : r) {
    f.w = stored_as(of(o.only.w), f.w);
    f.u = stored_as(of(o.only.u), f.u);
    f.qg = stored_as(of(o.only.qg), f.qg);
    f.kgC = stored_as(of(o.only.kgC), f.kgC);
    f.Aqk = stored_as(of(o.only.Aqk), f.Aqk);
  }
  return r;
}

// Sequential over the chunks; writes o (T x V, preallocated) and returns the final state.
// With a narrow saved_set, h enters the products (and the saved set) rounded, as on the GPU, while
// the decay term of h_next keeps the unrounded state (the GPU's FP32 registers).
mat state_pass(const std::vector<chunk_inputs>& chunks, const std::vector<intra_forward>& intra,
               mat h, mat& o, saved_set& saved, const chunked_options& opt = {}) {
  for (std::size_t n = 0; n < chunks.size(); ++n) {
    const mat hr = stored_as(opt.only.h.value_or(opt.saved_set), h);
    mat v_new_acc = v_new_of(intra[n], hr);
    mat v_new = stored_as(opt.only.v_new.value_or(opt.saved_set), v_new_acc);
    o.middleRows(chunks[n].start, chunks[n].len) = o_of(intra[n], hr, v_new);
    mat h_next = h_next_of(intra[n], h, v_new);
    saved.h.push_back(hr);
    saved.v_new.push_back(std::move(v_new));
    saved.h_unrounded.push_back(h);
    saved.v_new_unrounded.push_back(std::move(v_new_acc));
    h = std::move(h_next);
  }
  return h;
}

// ---- stages 1+2: reverse state pass --------------------------------------------------------

mat dv_new_of(const intra_forward& f, const mat& d_o, const mat& dh_next) {
  mat dv_new = f.Aqk.transpose() * d_o;
  dv_new.noalias() += f.kgC * dh_next;
  return dv_new;
}

// dL/d(state entering) = diag(exp(gamma_C)) dh_next + qg^T do - w^T dv_new.
mat dh_of(const intra_forward& f, const mat& d_o, const mat& dv_new, const mat& dh_next) {
  mat dh = f.exp_gamma_C.transpose().asDiagonal() * dh_next;
  dh.noalias() += f.qg.transpose() * d_o;
  dh.noalias() -= f.w.transpose() * dv_new;
  return dh;
}

struct reverse_pass {
  std::vector<mat> dh_next; // K x V per chunk
  std::vector<mat> dv_new;  // len x V per chunk
  mat dS0;                  // K x V
};

reverse_pass reverse_state_pass(const std::vector<chunk_inputs>& chunks,
                                const std::vector<intra_forward>& intra, mat dh_next,
                                const chunked_options& opt = {}) {
  reverse_pass r;
  r.dh_next.resize(chunks.size());
  r.dv_new.resize(chunks.size());
  for (std::size_t n = chunks.size(); n-- > 0;) {
    mat dhr = stored_as(opt.only.dh.value_or(opt.state_grad), dh_next);
    const mat dv_new = dv_new_of(intra[n], chunks[n].d_o, dhr);
    r.dv_new[n] = stored_as(opt.only.dv_new.value_or(opt.state_grad), dv_new);
    // bwd_dh's own product w^T dv_new takes its operand as stored, unless grad_dv_new says the
    // gradient stages read a different (wider) copy than bwd_dh's operand
    mat dh = dh_of(intra[n], chunks[n].d_o, r.dv_new[n], dh_next);
    if (opt.grad_dv_new) r.dv_new[n] = stored_as(*opt.grad_dv_new, dv_new);
    r.dh_next[n] = std::move(dhr);
    dh_next = std::move(dh);
  }
  r.dS0 = std::move(dh_next);
  return r;
}

// ---- stage 3: per chunk --------------------------------------------------------------------

struct stage3_gradients {
  mat dqg;          // len x K
  mat dAqk;         // len x len, i >= j
  mat dkgC;         // len x K
  row_vec dgamma_C; // K, the h .* dh_next term so far
  mat dv;           // len x V
  mat dkgp;         // len x K
  vec dbeta_wy;     // len
  mat dAkk;         // len x len, i > j
};

// o = qg h + Aqk v_new.
void output_terms(const chunk_inputs& c, const mat& h, const mat& v_new, stage3_gradients& s) {
  s.dqg = c.d_o * h.transpose();
  s.dAqk = lower(c.d_o * v_new.transpose());
}

// h_next = diag(exp(gamma_C)) h + kgC^T v_new.
void state_update_terms(const intra_forward& f, const mat& h, const mat& v_new, const mat& dh_next,
                        stage3_gradients& s) {
  s.dkgC = v_new * dh_next.transpose();
  s.dgamma_C = h.cwiseProduct(dh_next).rowwise().sum().transpose().cwiseProduct(f.exp_gamma_C);
}

// WY backward: v_new = u - w h, w = Tm kgp, u = Tm v, Tm = X diag(beta), X = (I + Akk)^-1.
void wy_backward(const chunk_inputs& c, const intra_forward& f, const mat& h, const mat& dv_new,
                 stage3_gradients& s) {
  const mat& du = dv_new;
  const mat dw = -dv_new * h.transpose();
  mat dTm = du * c.v.transpose();
  dTm.noalias() += dw * f.kgp.transpose();
  s.dv = f.Tm.transpose() * du;
  s.dkgp = f.Tm.transpose() * dw;
  const mat dX = dTm * c.beta.asDiagonal();
  s.dbeta_wy = dTm.cwiseProduct(f.X).colwise().sum().transpose();
  s.dAkk = strictly_lower(-(f.X.transpose() * dX * f.X.transpose()));
}

stage3_gradients stage3(const chunk_inputs& c, const intra_forward& f, const mat& h,
                        const mat& v_new, const mat& dh_next, const mat& dv_new) {
  stage3_gradients s;
  output_terms(c, h, v_new, s);
  state_update_terms(f, h, v_new, dh_next, s);
  wy_backward(c, f, h, dv_new, s);
  return s;
}

// ---- stage 4: GLM intra --------------------------------------------------------------------

// How the diagonal i == j of a pair product is treated.
enum class diagonal_mode {
  absent,    // strictly lower product (Akk)
  kept_out,  // diagonal in da, db only; its two dgamma members left out (the default)
  in_dgamma, // diagonal also in dgamma through both members (test only)
};

struct pair_gradients {
  mat da, db, dgamma; // len x K
};

// Backward of P_ij = sum_d a_id b_jd exp(gamma_id - gamma_jd) for upstream dP:
//   da_i += sum_j dP_ij b_j .* exp(gamma_i - gamma_j),  dgamma_i += a_i .* (that term)
//   db_j += sum_i dP_ij a_i .* exp(gamma_i - gamma_j),  dgamma_j -= b_j .* (that term)
//
// THE DIAGONAL PAIR IS KEPT HERE. For i == j the decay is exp(0) = 1 and the two dgamma members,
// +a_i .* b_i dP_ii (q side) and -b_i .* a_i dP_ii (k side), cancel analytically, so dgamma is
// built from the off-diagonal terms (j < i) only and the diagonal goes to da and db alone. On the
// GPU the two members would come from differently rounded TF32 operands (a exp(gamma - gamma_n)
// against b exp(gamma_n - gamma)), their residue would not cancel, and the fast-decay rescaling
// magnifies it: the published gate-gradient (dg, dA_log, dt_bias) bug. Never form them.
pair_gradients pair_product_backward(const mat& a, const mat& b, const mat& gamma, const mat& dP,
                                     diagonal_mode diagonal,
                                     chunked_options::pair_rounding rounding = chunked_options::pair_rounding::exact) {
  using pr = chunked_options::pair_rounding;
  const bool tf32_operands = rounding != pr::exact;
  const auto round_if = [](bool on, const mat& x) { return on ? stored_as(storage::tf32, x) : x; };
  const auto op = [&](const mat& x) { return round_if(rounding == pr::tf32 || rounding == pr::ab_only, x); };
  const auto dp_op = [&](const mat& x) { return round_if(rounding == pr::tf32 || rounding == pr::dP_only, x); };
  const Index n = a.rows(), K = a.cols();
  pair_gradients r{mat::Zero(n, K), mat::Zero(n, K), mat::Zero(n, K)};
  const std::vector<block> blocks = sub_blocks(n);
  for (const block I : blocks) {
    for (const block J : blocks) {
      if (J.start > I.start) break;
      const bool diagonal_block = J.start == I.start;
      const double limit = tf32_operands ? k_gpu_span_limit : k_span_limit;
      if (diagonal_block && !factorable(gamma, I, limit)) { // pair by pair, j < i
        for (Index i = I.start + 1; i < I.start + I.len; ++i) {
          const Index m = i - I.start;
          const mat E = decay_to_row(gamma, i, I.start);
          const row_vec dP_i = dP.row(i).segment(I.start, m);
          r.da.row(i).noalias() += dP_i * b.middleRows(I.start, m).cwiseProduct(E);
          r.db.middleRows(I.start, m) += (dP_i.transpose() * a.row(i)).cwiseProduct(E);
        }
        continue;
      }
      const decay_factors f = factors(gamma, I, J);
      const mat dP_IJ = diagonal_block ? strictly_lower(dP.block(I.start, J.start, I.len, J.len))
                                       : mat(dP.block(I.start, J.start, I.len, J.len));
      const mat b_right = op(b.middleRows(J.start, J.len).cwiseProduct(f.right));
      const mat a_left = op(a.middleRows(I.start, I.len).cwiseProduct(f.left));
      const mat dP_op = dp_op(dP_IJ);
      r.da.middleRows(I.start, I.len) += f.left.cwiseProduct(dP_op * b_right);
      r.db.middleRows(J.start, J.len) += f.right.cwiseProduct(dP_op.transpose() * a_left);
    }
  }
  r.dgamma = a.cwiseProduct(r.da) - b.cwiseProduct(r.db); // off-diagonal terms only

  if (diagonal == diagonal_mode::absent) return r;
  for (Index i = 0; i < n; ++i) {
    r.da.row(i) += dP(i, i) * b.row(i);
    r.db.row(i) += dP(i, i) * a.row(i);
  }
  if (diagonal == diagonal_mode::in_dgamma) {
    r.dgamma = a.cwiseProduct(r.da) - b.cwiseProduct(r.db); // both members present
  }
  return r;
}

// What stage 4 leaves per chunk (w.r.t. qs, k' and gamma; before the pre-processing chains).
struct intra_gradients {
  mat dqs, dk;      // len x K
  vec dbeta;        // len
  mat dgamma;       // len x K, without the gamma_C terms
  row_vec dgamma_C; // K, the gamma_C terms
};

// GLM intra: Aqk (a = qs, b = k, i >= j) and Akk = diag(beta) KK (a = b = k, i > j, upstream
// dKK_ij = beta_i dAkk_ij; dbeta_i += sum_j dAkk_ij KK_ij, KK being the product without beta).
intra_gradients glm_intra(const chunk_inputs& c, const intra_forward& f, const stage3_gradients& s,
                          diagonal_mode aqk_diagonal, chunked_options::pair_rounding tf32_pairs) {
  const pair_gradients qk = pair_product_backward(c.qs, c.k, f.gamma, s.dAqk, aqk_diagonal, tf32_pairs);
  const mat dKK = c.beta.asDiagonal() * s.dAkk;
  const pair_gradients kk = pair_product_backward(c.k, c.k, f.gamma, dKK, diagonal_mode::absent, tf32_pairs);

  intra_gradients r;
  r.dqs = qk.da;
  r.dk = qk.db + kk.da + kk.db;
  r.dbeta = s.dbeta_wy + s.dAkk.cwiseProduct(f.KK).rowwise().sum();
  r.dgamma = qk.dgamma + kk.dgamma;
  r.dgamma_C = s.dgamma_C;
  return r;
}

// The elementwise terms: qg = qs .* exp(gamma), kgC = k .* exp(gamma_C - gamma),
// kgp = k .* exp(gamma).
void add_elementwise_terms(const intra_forward& f, const stage3_gradients& s,
                           bool form_kgC_last_row_pair, intra_gradients& r) {
  r.dqs += s.dqg.cwiseProduct(f.exp_gamma);
  r.dgamma += s.dqg.cwiseProduct(f.qg);

  r.dk += s.dkgp.cwiseProduct(f.exp_gamma);
  r.dgamma += s.dkgp.cwiseProduct(f.kgp);

  // kgC: -dkgC_i .* kgC_i on row i, +dkgC_i .* kgC_i on gamma_C (which is the last row's gamma).
  // THE LAST-ROW PAIR IS KEPT HERE: for i = len - 1, kgC_i = k_i exp(0) and both members land on
  // the last row, where they cancel analytically; leave both out. Formed, their rounding residue
  // is spread to every row of dg by the reverse cumsum and then weighted by g in dA_log
  // (docs/backward-design.md has the measured cost).
  r.dk += s.dkgC.cwiseProduct(f.exp_gamma_C_minus_gamma);
  mat dkgC_kgC = s.dkgC.cwiseProduct(f.kgC);
  if (!form_kgC_last_row_pair) dkgC_kgC.bottomRows(1).setZero();
  r.dgamma -= dkgC_kgC;
  r.dgamma_C += dkgC_kgC.colwise().sum();
}

intra_gradients stage4(const chunk_inputs& c, const intra_forward& f, const stage3_gradients& s,
                       const chunked_options& options) {
  intra_gradients r = glm_intra(c, f, s,
                                options.aqk_diagonal_pair_in_dgamma ? diagonal_mode::in_dgamma
                                                                    : diagonal_mode::kept_out,
                                options.tf32_pair_products);
  add_elementwise_terms(f, s, options.kgC_last_row_pair_in_dgamma, r);
  return r;
}

// ---- stage 5: gamma gradient to g ----------------------------------------------------------

// gamma_C is gamma of the last valid row: its gradient joins that row's.
mat fold_gamma_C(mat dgamma, const row_vec& dgamma_C) {
  dgamma.row(dgamma.rows() - 1) += dgamma_C;
  return dgamma;
}

// dg_s = sum_{i >= s} dgamma_i, in descending order of i.
mat reverse_cumsum_rows(mat m) {
  for (Index i = m.rows() - 2; i >= 0; --i) m.row(i) += m.row(i + 1);
  return m;
}

// ---- the head ------------------------------------------------------------------------------

mat initial_state(const head_problem& p) {
  return p.S0.size() != 0 ? p.S0 : mat::Zero(p.q.cols(), p.v.cols());
}

mat final_state_gradient(const head_problem& p) {
  return p.dS_final.size() != 0 ? p.dS_final : mat::Zero(p.q.cols(), p.v.cols());
}

std::vector<intra_forward> stage0(const std::vector<chunk_inputs>& chunks) {
  std::vector<intra_forward> intra;
  intra.reserve(chunks.size());
  for (const chunk_inputs& c : chunks) intra.push_back(compute_intra(c));
  return intra;
}

void record_forward(const chunk_inputs& c, const intra_forward& f, chunk_trace& t) {
  t.start = c.start;
  t.len = c.len;
  t.gamma = f.gamma;
  t.gamma_C = f.gamma_C;
  t.Akk = f.Akk;
  t.X = f.X;
  t.Tm = f.Tm;
  t.kgp = f.kgp;
  t.kgC = f.kgC;
  t.qg = f.qg;
  t.w = f.w;
  t.u = f.u;
  t.Aqk = f.Aqk;
}

void record_backward(const stage3_gradients& s, const intra_gradients& r, const mat& dgamma,
                     chunk_trace& t) {
  t.dqg = s.dqg;
  t.dAqk = s.dAqk;
  t.dkgC = s.dkgC;
  t.dkgp = s.dkgp;
  t.dAkk = s.dAkk;
  t.dbeta_wy = s.dbeta_wy;
  t.dgamma_C = r.dgamma_C;
  t.dgamma = dgamma;
}

head_results run_chunked(const head_problem& p, const chunked_options& options,
                         std::vector<chunk_trace>* trace) {
  detail::validate(p, true);
  const prepared_inputs pp = detail::prepare(p);
  const Index T = p.q.rows(), K = p.q.cols(), V = p.v.cols();
  const std::vector<chunk_inputs> chunks = split_into_chunks(p, pp, true);
  const std::vector<intra_forward> intra = stage0(chunks);

  head_results res;
  res.outputs.o.resize(T, V);
  saved_set saved;
  const std::vector<intra_forward> state_reads = as_state_pass_reads(intra, options);
  res.outputs.S_final = state_pass(chunks, state_reads, initial_state(p), res.outputs.o, saved, options);

  chunked_options bwd_reads;
  bwd_reads.intra_tiles = options.bwd_intra_tiles.value_or(options.intra_tiles);
  if (!options.bwd_intra_tiles) bwd_reads.only = options.only; // per-tensor overrides follow the forward's
  for (auto member : {&chunked_options::per_tensor::w, &chunked_options::per_tensor::qg,
                      &chunked_options::per_tensor::kgC, &chunked_options::per_tensor::Aqk}) {
    if (options.bwd_only.*member) bwd_reads.only.*member = options.bwd_only.*member;
  }
  reverse_pass rev = reverse_state_pass(chunks, as_state_pass_reads(intra, bwd_reads), final_state_gradient(p),
                                        options);
  // h and v_new as the gradient stages read them.
  if (options.bwd_saved_set) {
    for (std::size_t n = 0; n < chunks.size(); ++n) {
      saved.h[n] = stored_as(*options.bwd_saved_set, saved.h_unrounded[n]);
      saved.v_new[n] = stored_as(*options.bwd_saved_set, saved.v_new_unrounded[n]);
    }
  }

  mat dqs(T, K), dk_prime(T, K), dv(T, V), dg(T, K);
  vec dbeta(T);
  if (trace) trace->assign(chunks.size(), chunk_trace{});
  for (std::size_t n = 0; n < chunks.size(); ++n) {
    const chunk_inputs& c = chunks[n];
    const stage3_gradients s =
        stage3(c, intra[n], saved.h[n], saved.v_new[n], rev.dh_next[n], rev.dv_new[n]);
    const intra_gradients r = stage4(c, intra[n], s, options);
    const mat dgamma = fold_gamma_C(r.dgamma, r.dgamma_C);

    dqs.middleRows(c.start, c.len) = r.dqs;
    dk_prime.middleRows(c.start, c.len) = r.dk;
    dv.middleRows(c.start, c.len) = s.dv;
    dbeta.segment(c.start, c.len) = r.dbeta;
    dg.middleRows(c.start, c.len) = reverse_cumsum_rows(dgamma);

    if (trace) {
      chunk_trace& t = (*trace)[n];
      record_forward(c, intra[n], t);
      t.h = saved.h[n];
      t.v_new = saved.v_new[n];
      t.dh_next = rev.dh_next[n];
      t.dv_new = rev.dv_new[n];
      t.dh = n > 0 ? rev.dh_next[n - 1] : rev.dS0;
      record_backward(s, r, dgamma, t);
    }
  }
  res.gradients = detail::chain_to_inputs(p, pp, std::move(dqs), std::move(dk_prime), std::move(dv),
                                  std::move(dbeta), std::move(dg), std::move(rev.dS0));
  return res;
}

} // namespace

head_outputs forward_chunked(const head_problem& p) {
  detail::validate(p, false);
  const prepared_inputs pp = detail::prepare(p);
  const std::vector<chunk_inputs> chunks = split_into_chunks(p, pp, false);
  head_outputs out;
  out.o.resize(p.q.rows(), p.v.cols());
  saved_set saved;
  out.S_final = state_pass(chunks, stage0(chunks), initial_state(p), out.o, saved);
  return out;
}

head_outputs forward_segmented(const head_problem& p, const segmented_options& options) {
  detail::validate(p, false);
  if (options.segment_chunks < 1) throw std::invalid_argument("forward_segmented: segment_chunks must be >= 1");
  const prepared_inputs pp = detail::prepare(p);
  const std::vector<chunk_inputs> chunks = split_into_chunks(p, pp, false);
  chunked_options serial;
  serial.intra_tiles = options.intra_tiles;
  serial.saved_set = options.saved_set;
  const std::vector<intra_forward> intra = as_state_pass_reads(stage0(chunks), serial);
  const auto op = [&](const mat& x) { return stored_as(options.transition, x); };
  const Index K = p.k.cols(), n = static_cast<Index>(chunks.size()), L = options.segment_chunks;

  // Phase 1, per segment (independent): P = A_last ... A_first and b = the end state from zero.
  struct segment {
    Index first, count;
    mat P, b;
  };
  std::vector<segment> segs;
  for (Index first = 0; first < n; first += L) {
    segment sg{first, std::min(L, n - first), mat::Identity(K, K), mat::Zero(K, p.v.cols())};
    for (Index c = sg.first; c < sg.first + sg.count; ++c) {
      const intra_forward& f = intra[c];
      mat A = f.exp_gamma_C.transpose().asDiagonal() * mat::Identity(K, K);
      A.noalias() -= f.kgC.transpose() * f.w; // bf16 operands like the serial pass's
      sg.P = op(A) * op(sg.P);
      const mat hr = stored_as(options.saved_set, sg.b);
      const mat v_new = stored_as(options.saved_set, v_new_of(f, hr));
      sg.b = h_next_of(f, sg.b, v_new);
    }
    segs.push_back(std::move(sg));
  }
  // Phase 2, in order: each segment's true start state.
  std::vector<mat> start(segs.size());
  mat h = initial_state(p);
  for (std::size_t s = 0; s < segs.size(); ++s) {
    start[s] = h;
    h = op(segs[s].P) * op(h) + segs[s].b;
  }
  // Phase 3, per segment (independent): the serial pass from the true start state.
  head_outputs out;
  out.o.resize(p.q.rows(), p.v.cols());
  for (std::size_t s = 0; s < segs.size(); ++s) {
    const std::vector<chunk_inputs> part(chunks.begin() + segs[s].first,
                                         chunks.begin() + segs[s].first + segs[s].count);
    const std::vector<intra_forward> part_intra(intra.begin() + segs[s].first,
                                                intra.begin() + segs[s].first + segs[s].count);
    saved_set saved;
    const mat end = state_pass(part, part_intra, start[s], out.o, saved, serial);
    if (s + 1 == segs.size()) out.S_final = end;
  }
  if (segs.empty()) out.S_final = initial_state(p);
  return out;
}

head_results forward_backward_chunked(const head_problem& p) {
  return run_chunked(p, chunked_options{}, nullptr);
}

head_gradients backward_chunked(const head_problem& p) {
  return forward_backward_chunked(p).gradients;
}

chunked_trace trace_chunked(const head_problem& p, const chunked_options& options) {
  chunked_trace t;
  t.results = run_chunked(p, options, &t.chunks);
  return t;
}

} // namespace kda::ref
