#pragma once
// From the project's packed inputs (core/inputs.hpp) to the reference's per-(sequence, head)
// problems. Both give bitwise the same problem; generate_head_problem touches only that head's
// elements, so the reference of a large row never needs the whole row in memory.
#include "core/inputs.hpp"
#include "kda_reference.hpp"

namespace kda::ref {

// The (seq, head) problem of a packed row: bf16 tensors widened exactly, fp32 gate input, A_log,
// dt_bias and d_o of that head. No initial state and no final-state gradient.
head_problem make_head_problem(const host_inputs& in, int seq, int head);

// The same problem regenerated from the counter-based generator (kda::element), without the row.
head_problem generate_head_problem(const problem_dims& d, gate_form gate, const input_spec& spec,
                                   int seq, int head);

} // namespace kda::ref
