// The backward kernels against the FP64 reference (issue 5): every gradient for every head of
// small rows, all gate x l2n x path variants, both decay regimes, outputs poisoned with NaN;
// bitwise repeat; saved and replay paths give the same bits; a sequence alone and packed gives
// the same per-token gradients. Skips with a message while the
// loaded libkda has no backward (kda_stage_names("bwd") == 0).
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "check/row_check.hpp"
#include "core/inputs.hpp"
#include "gpu/device_row.hpp"
#include "gpu_fixture.hpp"

namespace kda::test {
namespace {

host_outputs run_fwd_bwd(device_row& row) {
  row.poison_outputs();
  row.run(op_kind::fwd, nullptr);
  row.run(op_kind::bwd, nullptr);
  return row.download(true);
}

using bwd_param = std::tuple<gate_form, l2n_mode, bwd_path, decay_regime>;

class bwd_vs_reference : public gpu_test, public ::testing::WithParamInterface<bwd_param> {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && !lib().has_bwd()) GTEST_SKIP() << "libkda has no backward yet (" << lib().build_id() << ")";
  }
};

void expect_gradients_match(const kernel_library& lib, const problem_dims& d, const std::string& name,
                            const bwd_param& prm, std::uint64_t seed) {
  const auto [gate, l2n, path, decay] = prm;
  const host_inputs in = generate_inputs(d, gate, input_spec{name, seed, decay, l2n});
  device_row row(lib, in, path);
  const host_outputs got = run_fwd_bwd(row);
  const auto ref = reference_for(in, select_heads("", d.heads), true, 0, {});
  for (const auto& c : check_outputs(in, got, ref, decay)) {
    EXPECT_TRUE(c.error.finite) << name << " " << c.error.tensor << ": " << c.error.note;
    EXPECT_LE(c.error.rel_l2, c.threshold) << name << " " << c.error.tensor << " over its target";
    std::printf("  %-7s %-4s %-6s %-6s %-6s %-8s rel_l2 %.3e (x%.2f FLA)\n", name.c_str(),
                std::string(to_string(gate)).c_str(), std::string(to_string(l2n)).c_str(),
                std::string(to_string(path)).c_str(), std::string(to_string(decay)).c_str(), c.error.tensor.c_str(),
                c.error.rel_l2, c.fla_level > 0 ? c.error.rel_l2 / c.fla_level : 0.0);
  }
}

TEST_P(bwd_vs_reference, ragged_lengths_with_one_token_sequences) {
  expect_gradients_match(lib(), dims({1, 63, 64, 65, 129, 1, 200}, 4), "ragged", GetParam(), 21);
}

TEST_P(bwd_vs_reference, m2_all_heads) { expect_gradients_match(lib(), dims({2048, 1500}, 4), "m2", GetParam(), 7); }

INSTANTIATE_TEST_SUITE_P(variants, bwd_vs_reference,
                         ::testing::Combine(::testing::Values(gate_form::g, gate_form::raw),
                                            ::testing::Values(l2n_mode::off, l2n_mode::fused),
                                            ::testing::Values(bwd_path::saved, bwd_path::replay),
                                            ::testing::Values(decay_regime::normal, decay_regime::fast)),
                         [](const ::testing::TestParamInfo<bwd_param>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param))) + "_" +
                                  std::string(to_string(std::get<2>(info.param))) + "_" +
                                  std::string(to_string(std::get<3>(info.param)));
                         });

class bwd_determinism : public gpu_test {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && !lib().has_bwd()) GTEST_SKIP() << "libkda has no backward yet (" << lib().build_id() << ")";
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void expect_same_gradients(const host_outputs& a, const host_outputs& b, const std::string& what) {
  EXPECT_TRUE(same_bits(a.dq, b.dq)) << what << ": dq";
  EXPECT_TRUE(same_bits(a.dk, b.dk)) << what << ": dk";
  EXPECT_TRUE(same_bits(a.dv, b.dv)) << what << ": dv";
  EXPECT_TRUE(same_bits(a.dbeta, b.dbeta)) << what << ": dbeta";
  EXPECT_TRUE(same_bits(a.dgate, b.dgate)) << what << ": dg/dx";
  EXPECT_TRUE(same_bits(a.dA_log, b.dA_log)) << what << ": dA_log";
  EXPECT_TRUE(same_bits(a.ddt_bias, b.ddt_bias)) << what << ": ddt_bias";
}

TEST_F(bwd_determinism, repeat_runs_same_bits) {
  const host_inputs in = generate_inputs(dims({2048, 1500, 77}, 4), gate_form::raw,
                                         input_spec{"m2", 3, decay_regime::fast, l2n_mode::fused});
  device_row row(lib(), in, bwd_path::saved);
  const host_outputs first = run_fwd_bwd(row);
  for (int r = 0; r < 4; ++r) expect_same_gradients(first, run_fwd_bwd(row), "run " + std::to_string(r + 1));
}

TEST_F(bwd_determinism, saved_and_replay_paths_same_bits) {
  // Both paths compute the same state h and v_new (replay recomputes them with the forward's own
  // state pass), so every gradient must come out with the same bits.
  const host_inputs in = generate_inputs(dims({700, 65, 1}, 4), gate_form::raw,
                                         input_spec{"paths", 5, decay_regime::normal, l2n_mode::off});
  device_row saved(lib(), in, bwd_path::saved), replay(lib(), in, bwd_path::replay);
  expect_same_gradients(run_fwd_bwd(saved), run_fwd_bwd(replay), "saved vs replay");
}

TEST_F(bwd_determinism, same_bits_for_every_state_vtile) {
  // The V tile of the serial passes (fwd_state, its replay, bwd_dh) is a launch choice made at run
  // time from the shape (16, 32 or 64 columns); no gradient bit may depend on it, on either path.
  const host_inputs in = generate_inputs(dims({700, 65, 1}, 4), gate_form::raw,
                                         input_spec{"vt", 13, decay_regime::fast, l2n_mode::fused});
  for (const bwd_path path : {bwd_path::saved, bwd_path::replay}) {
    host_outputs first;
    for (const char* tile : {"16", "32", "64"}) {
      setenv("KDA_STATE_VTILE", tile, 1);
      device_row row(lib(), in, path);
      const host_outputs got = run_fwd_bwd(row);
      if (first.dq.empty()) {
        first = got;
        continue;
      }
      const std::string what = std::string(to_string(path)) + ", V tile " + tile + " vs 16";
      EXPECT_TRUE(same_bits(first.o, got.o)) << what << ": o";
      expect_same_gradients(first, got, what);
    }
  }
  unsetenv("KDA_STATE_VTILE");
}

TEST_F(bwd_determinism, sequence_alone_equals_packed) {
  // Sequence "b" (length 130) packed between two others gets the same bits of every per-token
  // gradient as alone: sequences never interact in the backward either (the state-gradient pass
  // runs per sequence, everything else per chunk). dA_log and dt_bias are sums over all tokens of
  // the batch, so they differ by definition and are not compared.
  const input_spec spec{"pack", 9, decay_regime::fast, l2n_mode::fused};
  const problem_dims packed = dims({100, 130, 64}, 2);
  const host_inputs in_packed = generate_inputs(packed, gate_form::raw, spec);
  const std::size_t H = 2, HK = H * 128, first = 100, len = 130;
  const host_inputs in_alone = sequence_alone(in_packed, first, static_cast<std::int32_t>(len));
  device_row a(lib(), in_packed, bwd_path::saved), b(lib(), in_alone, bwd_path::saved);
  const host_outputs ga = run_fwd_bwd(a), gb = run_fwd_bwd(b);
  const auto same_rows = [&](const std::vector<float>& x, const std::vector<float>& y, std::size_t width) {
    return std::memcmp(x.data() + first * width, y.data(), len * width * sizeof(float)) == 0;
  };
  EXPECT_TRUE(same_rows(ga.dq, gb.dq, HK)) << "dq";
  EXPECT_TRUE(same_rows(ga.dk, gb.dk, HK)) << "dk";
  EXPECT_TRUE(same_rows(ga.dv, gb.dv, HK)) << "dv";
  EXPECT_TRUE(same_rows(ga.dbeta, gb.dbeta, H)) << "dbeta";
  EXPECT_TRUE(same_rows(ga.dgate, gb.dgate, HK)) << "dx";
}

class bwd_arguments : public gpu_test {};

TEST_F(bwd_arguments, a_misaligned_raw_gate_is_refused_with_a_clear_error) {
  // bwd_grad's raw-gate chain copies x in 16-byte pieces: an x 4 bytes off is refused before
  // anything is launched (before, it reached that copy unchecked).
  const argument_row r(lib(), gate_form::raw);
  kda_bwd_args a = r.row.args();
  a.fwd.gate_in = a.fwd.gate_in + 1;
  expect_refused_as_misaligned([&] { lib().bwd(r.plan, a, nullptr); }, "x");
}

} // namespace
} // namespace kda::test
