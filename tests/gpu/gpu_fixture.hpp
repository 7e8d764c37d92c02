#pragma once
// Shared set-up of the GPU tests: skip without a device, load libkda once.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/inputs.hpp"
#include "gpu/device_info.hpp"
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
