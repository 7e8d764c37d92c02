#pragma once
// Per-token pre-processing of one head problem (kda-algorithm.md, "Pre-processing") and the
// chains that carry the recurrence's gradients back through it. Internal to the reference.
#include "kda_reference.hpp"

namespace kda::ref::detail {

// Throws std::invalid_argument naming the first tensor whose shape disagrees with q's T x K.
// d_o is checked only when `for_backward`.
void validate(const head_problem& p, bool for_backward);

// What the recurrence consumes, computed once per problem.
struct prepared_inputs {
  double scale = 0.0;
  mat g;              // T x K log gate
  mat decay;          // T x K, exp(g)
  mat q_prime;        // T x K, q' (q itself when l2n is off)
  mat k_prime;        // T x K, k' (likewise)
  vec q_rstd, k_rstd; // T, rsqrt(x.x + eps) per token; empty when l2n is off
  mat qs;             // T x K, scale * q'
};

prepared_inputs prepare(const head_problem& p);

// dq = rstd * (dq' - q' (q'.dq')) per row, in place: d_prime holds dq' on entry, dq on return.
void l2_norm_backward(const mat& x_prime, const vec& rstd, mat& d_prime);

// Gradients w.r.t. what the algorithms consume (qs, k', v, beta, g) carried through the
// pre-processing chains (scale, L2 norm, raw gate) to the problem's inputs. Shared by the
// recurrence and the chunked form.
head_gradients chain_to_inputs(const head_problem& p, const prepared_inputs& pp, mat dqs, mat dk_prime,
                               mat dv, vec dbeta, mat dg, mat dS0);

// Raw gate chain, in place: dgate holds dg on entry and dx on return.
// dA_log = sum_{t,k} dg * g; ddt_bias = sum_t dx, both summed over t in ascending order.
void raw_gate_backward(const head_problem& p, const mat& g, mat& dgate, double& dA_log, double& dA_log_abs_terms,
                       vec& ddt_bias);

} // namespace kda::ref::detail
