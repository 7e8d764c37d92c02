#pragma once
// Shared set-up of the GPU tests: skip without a device, load libkda once.
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "core/inputs.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_row.hpp"
#include "gpu/kernel_library.hpp"

namespace kda::test {

// A batch shape from sequence lengths (K = V = 128).
inline problem_dims dims(std::vector<std::int32_t> lens, int heads) {
  problem_dims d;
  d.cu_seqlens = {0};
  for (auto l : lens) d.cu_seqlens.push_back(d.cu_seqlens.back() + l);
  d.heads = heads;
  return d;
}

// The inputs of tokens [first, first + len) of a packed batch as a batch of that one sequence
// (for the "alone equals packed" determinism tests). A_log and dt_bias are per head: kept.
inline host_inputs sequence_alone(const host_inputs& packed, std::size_t first, std::int32_t len) {
  host_inputs alone = packed;
  alone.dims = dims({len}, packed.dims.heads);
  const std::size_t H = static_cast<std::size_t>(packed.dims.heads), HK = H * 128;
  const auto cut = [&](auto& v, std::size_t width) {
    v = std::vector<typename std::decay_t<decltype(v)>::value_type>(v.begin() + first * width,
                                                                    v.begin() + (first + len) * width);
  };
  cut(alone.q, HK);
  cut(alone.k, HK);
  cut(alone.v, HK);
  cut(alone.d_o, HK);
  cut(alone.gate_input, HK);
  cut(alone.beta, H);
  return alone;
}

// What the argument checks call kda_fwd / kda_bwd with: one 100-token sequence, 2 heads, the gate
// form asked for, on the device (replay path: nothing saved), and a plan for it.
struct argument_row {
  host_inputs in;
  device_row row;
  kernel_library::plan plan;
  argument_row(const kernel_library& lib, gate_form gate)
      : in(generate_inputs(dims({100}, 2), gate, input_spec{"align", 1, decay_regime::normal, l2n_mode::off})),
        row(lib, in, bwd_path::replay), plan(lib, make_problem(in)) {}
};

// `call` runs kda_fwd or kda_bwd with one tensor moved off its 16-byte alignment (`what` names
// it): the library must refuse it before anything is launched, with a message that states the rule.
template <typename Call>
void expect_refused_as_misaligned(const Call& call, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << "a misaligned " << what << " was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("16-byte aligned"), std::string::npos) << e.what();
  }
}

class gpu_test : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!describe_gpu(0, &why)) {
      s_skip = "no CUDA device: " + why;
      return;
    }
    const std::string path = default_kernel_library_path();
    if (path.empty()) {
      s_skip = "libkda.so not found (set KDA_LIBRARY)";
      return;
    }
    s_lib = std::make_unique<kernel_library>(path);
  }
  static void TearDownTestSuite() { s_lib.reset(); }
  void SetUp() override {
    if (!s_skip.empty()) GTEST_SKIP() << s_skip;
  }
  static const kernel_library& lib() { return *s_lib; }

private:
  static inline std::string s_skip;
  static inline std::unique_ptr<kernel_library> s_lib;
};

} // namespace kda::test
