#include "gpu/device_row.hpp"

#include <stdexcept>

namespace kda {
namespace {

std::vector<float> bf16_buffer_to_float(const device_buffer& b, std::size_t n) {
  const auto bits = b.to_vector<bf16_bits>(n);
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_float(bits[i]);
  return out;
}

} // namespace

kda_problem make_problem(const host_inputs& in) {
  kda_problem p{};
  p.cu_seqlens_host = in.dims.cu_seqlens.data();
  p.num_seqs = in.dims.sequences();
  p.heads = in.dims.heads;
  p.k_dim = in.dims.k_dim;
  p.v_dim = in.dims.v_dim;
  p.gate = in.gate == gate_form::raw ? KDA_GATE_RAW : KDA_GATE_G;
  p.l2n = in.l2n == l2n_mode::fused ? KDA_L2N_FUSED : KDA_L2N_OFF;
  p.scale = 0.f;
  return p;
}

device_row::device_row(const kernel_library& lib, const host_inputs& in, bwd_path path)
    : m_lib(lib), m_in(in), m_path(path), m_plan(lib, make_problem(in)) {
  const std::size_t T = in.dims.tokens(), H = in.dims.heads, K = in.dims.k_dim, V = in.dims.v_dim;
  m_cu = device_buffer::from(in.dims.cu_seqlens);
  m_q = device_buffer::from(in.q);
  m_k = device_buffer::from(in.k);
  m_v = device_buffer::from(in.v);
  m_beta = device_buffer::from(in.beta);
  m_gate = device_buffer::from(in.gate_input);
  m_A_log = device_buffer::from(in.A_log);
  m_dt_bias = device_buffer::from(in.dt_bias);
  m_do = device_buffer::from(in.d_o);
  m_o = device_buffer(T * H * V * sizeof(bf16_bits));
  if (path == bwd_path::saved) m_saved = device_buffer(m_plan.saved_bytes());
  m_dq = device_buffer(T * H * K * sizeof(bf16_bits));
  m_dk = device_buffer(T * H * K * sizeof(bf16_bits));
  m_dv = device_buffer(T * H * V * sizeof(bf16_bits));
  m_dbeta = device_buffer(T * H * sizeof(bf16_bits));
  m_dgate = device_buffer(T * H * K * sizeof(float));
  m_dA_log = device_buffer(H * sizeof(float));
  m_ddt_bias = device_buffer(H * K * sizeof(float));
}

kda_bwd_args device_row::args() const {
  kda_bwd_args a{};
  a.fwd.q = m_q.get();
  a.fwd.k = m_k.get();
  a.fwd.v = m_v.get();
  a.fwd.beta = m_beta.get();
  a.fwd.gate_in = m_gate.as<float>();
  a.fwd.A_log = m_A_log.as<float>();
  a.fwd.dt_bias = m_dt_bias.as<float>();
  a.fwd.o = m_o.get();
  a.fwd.saved = m_path == bwd_path::saved ? m_saved.get() : nullptr;
  a.d_o = m_do.get();
  a.dq = m_dq.get();
  a.dk = m_dk.get();
  a.dv = m_dv.get();
  a.dbeta = m_dbeta.get();
  a.dgate = m_dgate.as<float>();
  a.dA_log = m_dA_log.as<float>();
  a.ddt_bias = m_ddt_bias.as<float>();
  return a;
}

void device_row::prepare_backward(void* stream) {
  if (m_path == bwd_path::saved) m_lib.fwd(m_plan, args().fwd, stream);
}

void device_row::run(op_kind op, void* stream) {
  const kda_bwd_args a = args();
  switch (op) {
  case op_kind::fwd:
    m_lib.fwd(m_plan, a.fwd, stream);
    break;
  case op_kind::bwd:
    m_lib.bwd(m_plan, a, stream);
    break;
  case op_kind::fwd_bwd:
    m_lib.fwd(m_plan, a.fwd, stream);
    m_lib.bwd(m_plan, a, stream);
    break;
  }
}

void device_row::poison_outputs() {
  for (device_buffer* b : {&m_o, &m_dq, &m_dk, &m_dv, &m_dbeta, &m_dgate, &m_dA_log, &m_ddt_bias}) {
    b->fill_bytes(0xff);
  }
}

host_outputs device_row::download(bool with_backward) const {
  KDA_CUDA_CHECK(cudaDeviceSynchronize());
  const std::size_t T = m_in.dims.tokens(), H = m_in.dims.heads, K = m_in.dims.k_dim, V = m_in.dims.v_dim;
  host_outputs out;
  out.o = bf16_buffer_to_float(m_o, T * H * V);
  if (with_backward) {
    out.has_backward = true;
    out.dq = bf16_buffer_to_float(m_dq, T * H * K);
    out.dk = bf16_buffer_to_float(m_dk, T * H * K);
    out.dv = bf16_buffer_to_float(m_dv, T * H * V);
    out.dbeta = bf16_buffer_to_float(m_dbeta, T * H);
    out.dgate = m_dgate.to_vector<float>(T * H * K);
    if (m_in.gate == gate_form::raw) {
      out.dA_log = m_dA_log.to_vector<float>(H);
      out.ddt_bias = m_ddt_bias.to_vector<float>(H * K);
    }
  }
  return out;
}

} // namespace kda
