// The forward kernels against the FP64 reference: o for every head of small rows, every gate x
// l2n combination, both decay regimes, outputs poisoned with NaN before each run; bitwise
// repeatability; the same bits on the saved and the replay path and for every state V tile; a
// sequence gives the same bits alone and packed with others.
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "check/row_check.hpp"
#include "core/inputs.hpp"
#include "gpu/device_row.hpp"
#include "gpu_fixture.hpp"

namespace kda::test {
namespace {

using fwd_param = std::tuple<gate_form, l2n_mode, decay_regime>;

class fwd_vs_reference : public gpu_test, public ::testing::WithParamInterface<fwd_param> {};

void expect_matches_reference(const kernel_library& lib, const problem_dims& d, const std::string& name,
                              gate_form gate, l2n_mode l2n, decay_regime decay, std::uint64_t seed) {
  const input_spec spec{name, seed, decay, l2n};
  const host_inputs in = generate_inputs(d, gate, spec);
  device_row row(lib, in, bwd_path::replay);
  row.poison_outputs();
  row.run(op_kind::fwd, nullptr);
  const host_outputs got = row.download(false);
  const auto heads = select_heads("", d.heads);
  const auto ref = reference_for(in, heads, false, 0, {});
  const auto checks = check_outputs(in, got, ref, decay);
  ASSERT_EQ(checks.size(), 1u);
  const auto& c = checks[0];
  EXPECT_TRUE(c.error.finite) << name << ": " << c.error.note;
  EXPECT_LE(c.error.rel_l2, c.threshold) << name << " o rel_l2 over the FLA level";
  std::printf("  %-8s %-4s %-6s %-6s o rel_l2 %.3e  (floor %.3e, x%.2f floor; threshold %.2e)\n", name.c_str(),
              std::string(to_string(gate)).c_str(), std::string(to_string(l2n)).c_str(),
              std::string(to_string(decay)).c_str(), c.error.rel_l2, c.error.floor_rel_l2, c.error.err_over_floor,
              c.threshold);
}

TEST_P(fwd_vs_reference, ragged_lengths_all_heads) {
  const auto [gate, l2n, decay] = GetParam();
  expect_matches_reference(lib(), dims({1, 63, 64, 65, 129, 3, 200}, 4), "ragged", gate, l2n, decay, 11);
}

TEST_P(fwd_vs_reference, m2_all_heads) {
  const auto [gate, l2n, decay] = GetParam();
  expect_matches_reference(lib(), dims({2048, 1500}, 4), "m2", gate, l2n, decay, 7);
}

INSTANTIATE_TEST_SUITE_P(variants, fwd_vs_reference,
                         ::testing::Combine(::testing::Values(gate_form::g, gate_form::raw),
                                            ::testing::Values(l2n_mode::off, l2n_mode::fused),
                                            ::testing::Values(decay_regime::normal, decay_regime::fast)),
                         [](const ::testing::TestParamInfo<fwd_param>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param))) + "_" +
                                  std::string(to_string(std::get<2>(info.param)));
                         });

class fwd_determinism : public gpu_test {};

TEST_F(fwd_determinism, repeat_runs_same_bits) {
  const problem_dims d = dims({2048, 1500, 77}, 4);
  const host_inputs in = generate_inputs(d, gate_form::raw, input_spec{"m2", 3, decay_regime::fast, l2n_mode::fused});
  device_row row(lib(), in, bwd_path::saved);
  row.run(op_kind::fwd, nullptr);
  const auto first = row.download(false);
  for (int r = 0; r < 5; ++r) {
    row.poison_outputs();
    row.run(op_kind::fwd, nullptr);
    const auto again = row.download(false);
    ASSERT_EQ(0, std::memcmp(first.o.data(), again.o.data(), first.o.size() * sizeof(float))) << "run " << r;
  }
}

TEST_F(fwd_determinism, same_bits_for_every_state_vtile) {
  // The V tile of the state pass is a launch choice made at run time; the bits must not move.
  const problem_dims d = dims({700, 65, 1}, 4);
  const host_inputs in = generate_inputs(d, gate_form::g, input_spec{"vt", 9, decay_regime::normal, l2n_mode::off});
  std::vector<float> outs[3];
  const char* tiles[3] = {"16", "32", "64"};
  for (int i = 0; i < 3; ++i) {
    setenv("KDA_STATE_VTILE", tiles[i], 1);
    device_row row(lib(), in, bwd_path::saved);
    row.poison_outputs();
    row.run(op_kind::fwd, nullptr);
    outs[i] = row.download(false).o;
  }
  unsetenv("KDA_STATE_VTILE");
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(0, std::memcmp(outs[0].data(), outs[i].data(), outs[0].size() * sizeof(float))) << "V tile " << tiles[i];
  }
}

TEST_F(fwd_determinism, saved_and_replay_paths_same_bits) {
  // With 16-column state tiles (3 sequences x 4 heads) the saved path leaves o to fwd_output,
  // which reads the saved h and v_new; the replay path's state pass forms o itself. The path is a
  // caller's choice and o must not depend on it (fwd_vs_reference checks the replay path).
  const problem_dims d = dims({2048, 1500, 77}, 4);
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    const host_inputs in = generate_inputs(d, gate, input_spec{"paths", 13, decay_regime::normal, l2n_mode::fused});
    std::vector<float> outs[2];
    const bwd_path paths[2] = {bwd_path::saved, bwd_path::replay};
    for (int i = 0; i < 2; ++i) {
      device_row row(lib(), in, paths[i]);
      row.poison_outputs();
      row.run(op_kind::fwd, nullptr);
      outs[i] = row.download(false).o;
    }
    EXPECT_EQ(0, std::memcmp(outs[0].data(), outs[1].data(), outs[0].size() * sizeof(float)))
        << "gate " << to_string(gate);
  }
}

TEST_F(fwd_determinism, same_bits_wherever_the_saved_path_forms_o) {
  // On the saved path with 16-column state tiles, o of a long sequence's chunks comes from
  // fwd_output, but the last KDA_O_TAIL_CHUNKS from the state pass's output warps (v47). Every
  // sequence is made "long" here (KDA_O_APART_MIN_CHUNKS=1: 32, 24 and 2 chunks), and the tail
  // runs from none to more than a sequence has; o must keep the replay path's bits throughout.
  const problem_dims d = dims({2048, 1500, 77}, 4);
  const host_inputs in = generate_inputs(d, gate_form::raw, input_spec{"tail", 17, decay_regime::fast, l2n_mode::off});
  const auto forward_o = [&](bwd_path path) {
    device_row row(lib(), in, path);
    row.poison_outputs();
    row.run(op_kind::fwd, nullptr);
    return row.download(false).o;
  };
  const std::vector<float> replay = forward_o(bwd_path::replay);
  // the saved path's o with the library variable `var` at each of `values`, against the replay path's
  const auto expect_replay_bits = [&](const char* var, std::initializer_list<const char*> values) {
    for (const char* value : values) {
      setenv(var, value, 1);
      const std::vector<float> saved = forward_o(bwd_path::saved);
      EXPECT_EQ(0, std::memcmp(replay.data(), saved.data(), replay.size() * sizeof(float))) << var << "=" << value;
    }
    unsetenv(var);
  };
  setenv("KDA_O_APART_MIN_CHUNKS", "1", 1);
  expect_replay_bits("KDA_O_TAIL_CHUNKS", {"0", "1", "5", "8", "24", "40"});
  unsetenv("KDA_O_APART_MIN_CHUNKS");
  // v48's per-sequence tails (KDA_O_SLACK): from none to whole sequences
  expect_replay_bits("KDA_O_SLACK", {"1/1", "20/9", "4/1", "0/0"});
}

TEST_F(fwd_determinism, sequence_alone_equals_packed) {
  // Sequence "b" (length 130) packed between two others gives the same bits as alone: sequences
  // never interact and nothing depends on a sequence's position in the batch.
  const input_spec spec{"pack", 5, decay_regime::normal, l2n_mode::off};
  const problem_dims packed = dims({100, 130, 64}, 2);
  const host_inputs in_packed = generate_inputs(packed, gate_form::g, spec);
  const std::size_t HK = 2 * 128, first = 100;
  const host_inputs in_alone = sequence_alone(in_packed, first, 130);
  device_row a(lib(), in_packed, bwd_path::replay), b(lib(), in_alone, bwd_path::replay);
  a.run(op_kind::fwd, nullptr);
  b.run(op_kind::fwd, nullptr);
  const auto oa = a.download(false), ob = b.download(false);
  ASSERT_EQ(0, std::memcmp(oa.o.data() + first * HK, ob.o.data(), 130 * HK * sizeof(float)));
}

class fwd_arguments : public gpu_test {};

TEST_F(fwd_arguments, a_misaligned_tensor_is_refused_with_a_clear_error) {
  // The kernels move q, k, v, o and the saved set in 16-byte pieces (copy-engine boxes need a
  // 16-byte aligned address): a tensor 8 bytes off is refused before anything is launched.
  const argument_row r(lib(), gate_form::g);
  kda_fwd_args a = r.row.args().fwd;
  a.q = static_cast<const char*>(a.q) + 8;
  expect_refused_as_misaligned([&] { lib().fwd(r.plan, a, nullptr); }, "q");
}

} // namespace
} // namespace kda::test
