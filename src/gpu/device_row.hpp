#pragma once
// One row on the GPU: its inputs uploaded once, its outputs, the saved set, and the kernel
// library's plan. Runs the ops of a row key (fwd, bwd, fwd+bwd) on a stream.
#include <cstdint>
#include <vector>

#include "core/inputs.hpp"
#include "core/outputs.hpp"
#include "core/row_key.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/kernel_library.hpp"

namespace kda {

class device_row {
public:
  device_row(const kernel_library& lib, const host_inputs& in, bwd_path path);

  // One call of the op. bwd on the saved path needs prepare_backward() first (fills the saved set).
  void run(op_kind op, void* stream);
  void prepare_backward(void* stream);
  // Fills every output with NaN bits, so an element a kernel fails to write cannot pass.
  void poison_outputs();
  host_outputs download(bool with_backward) const;

  const kernel_library& library() const { return m_lib; }
  const kernel_library::plan& plan() const { return m_plan; }
  kda_bwd_args args() const;

private:
  const kernel_library& m_lib;
  const host_inputs& m_in;
  bwd_path m_path;
  kernel_library::plan m_plan;
  device_buffer m_cu, m_q, m_k, m_v, m_beta, m_gate, m_A_log, m_dt_bias, m_do;
  device_buffer m_o, m_saved;
  device_buffer m_dq, m_dk, m_dv, m_dbeta, m_dgate, m_dA_log, m_ddt_bias;
};

kda_problem make_problem(const host_inputs& in);

} // namespace kda
