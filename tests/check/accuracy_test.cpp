// compare_tensor and all_finite: the error figures on known inputs, head selection against the
// head-compact reference, non-finite values located by token/head/col, and the bf16/fp32 floors.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "check/accuracy.hpp"
#include "core/bf16.hpp"
#include "core/generator.hpp"

namespace kda {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// `n` standard normal reference values, optionally rounded to bf16 (so a bf16 output can equal
// them exactly).
std::vector<double> normals(std::size_t n, bool bf16_exact, std::uint64_t seed = 1) {
  const gen::stream s = gen::make_stream(seed, gen::name_hash("accuracy"), gen::tensor_id::v);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = gen::normal(s, i);
    out[i] = bf16_exact ? round_to_bf16(static_cast<float>(x)) : x;
  }
  return out;
}

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

TEST(check_accuracy, exact_match_has_zero_error) {
  const auto ref = normals(4 * 2 * 8, true);
  const auto got = to_float(ref);
  const tensor_error e = compare_tensor("o", {got.data(), 4, 2, 8}, ref.data(), {0, 1}, out_dtype::bf16);
  EXPECT_EQ(e.tensor, "o");
  EXPECT_TRUE(e.finite);
  EXPECT_TRUE(e.note.empty());
  EXPECT_EQ(e.rel_l2, 0.0);
  EXPECT_EQ(e.max_abs_rel, 0.0);
  EXPECT_EQ(e.floor_rel_l2, 0.0); // the reference is already bf16-exact
  EXPECT_EQ(e.err_over_floor, 0.0);
}

TEST(check_accuracy, known_perturbation_gives_known_errors) {
  // ref = 1 everywhere (T = 2, H = 1, W = 2: four elements, ||ref|| = 2); one element off by 0.5.
  const std::vector<double> ref{1, 1, 1, 1};
  const std::vector<float> got{1, 1.5f, 1, 1};
  const tensor_error e = compare_tensor("dv", {got.data(), 2, 1, 2}, ref.data(), {0}, out_dtype::bf16);
  EXPECT_DOUBLE_EQ(e.rel_l2, 0.25);
  EXPECT_DOUBLE_EQ(e.max_abs_rel, 0.5);
  EXPECT_EQ(e.floor_rel_l2, 0.0);

  // A relative perturbation of every element by (1 + 2^-10): rel_l2 = 2^-10 exactly.
  const auto r = normals(3 * 4 * 16, true);
  std::vector<float> p(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) p[i] = static_cast<float>(r[i] * (1.0 + 0x1.0p-10));
  const tensor_error f = compare_tensor("dq", {p.data(), 3, 4, 16}, r.data(), {0, 1, 2, 3}, out_dtype::fp32);
  EXPECT_NEAR(f.rel_l2, 0x1.0p-10, 1e-12);
  EXPECT_NEAR(f.max_abs_rel, 0x1.0p-10, 1e-12);
}

TEST(check_accuracy, compares_only_the_selected_heads_against_the_compact_reference) {
  // Kernel output [T = 3, H = 3, W = 2]; the reference holds heads {0, 2} as [3, 2, 2].
  const int T = 3, H = 3, W = 2;
  std::vector<float> got(T * H * W, std::numeric_limits<float>::quiet_NaN()); // head 1: garbage
  std::vector<double> ref(T * 2 * W);
  for (int t = 0; t < T; ++t) {
    for (int hs = 0; hs < 2; ++hs) {
      const int h = hs == 0 ? 0 : 2;
      for (int c = 0; c < W; ++c) {
        const double v = 1 + t * 10 + h + c * 0.5;
        ref[(t * 2 + hs) * W + c] = v;
        got[(t * H + h) * W + c] = static_cast<float>(h == 2 && t == 1 && c == 1 ? 2 * v : v);
      }
    }
  }
  const tensor_error e = compare_tensor("dk", {got.data(), T, H, W}, ref.data(), {0, 2}, out_dtype::fp32);
  ASSERT_TRUE(e.finite) << e.note;
  const double off = 1 + 10 + 2 + 0.5; // the one wrong element (doubled)
  double ref2 = 0, max_ref = 0;
  for (double v : ref) {
    ref2 += v * v;
    max_ref = std::fmax(max_ref, std::fabs(v));
  }
  EXPECT_NEAR(e.rel_l2, off / std::sqrt(ref2), 1e-15);
  EXPECT_NEAR(e.max_abs_rel, off / max_ref, 1e-15);
}

TEST(check_accuracy, non_finite_output_is_located) {
  const int T = 4, H = 3, W = 5;
  const auto ref = normals(T * H * W, true);
  auto got = to_float(ref);
  got[(2 * H + 1) * W + 3] = std::numeric_limits<float>::quiet_NaN(); // token 2, head 1, col 3
  got[(3 * H + 2) * W + 0] = std::numeric_limits<float>::infinity();  // a later one
  const tensor_error e = compare_tensor("dbeta", {got.data(), T, H, W}, ref.data(), {0, 1, 2}, out_dtype::bf16);
  EXPECT_FALSE(e.finite);
  EXPECT_NE(e.note.find("kernel non-finite"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("token 2, head 1, col 3"), std::string::npos) << e.note;
  EXPECT_TRUE(std::isnan(e.rel_l2));
  EXPECT_TRUE(std::isnan(e.max_abs_rel));
  EXPECT_TRUE(std::isnan(e.err_over_floor));
}

TEST(check_accuracy, non_finite_reference_is_located) {
  std::vector<double> ref{1, 2, k_nan, 4};
  const std::vector<float> got{1, 2, 3, 4};
  const tensor_error e = compare_tensor("o", {got.data(), 2, 2, 1}, ref.data(), {0, 1}, out_dtype::bf16);
  EXPECT_FALSE(e.finite);
  EXPECT_NE(e.note.find("reference non-finite"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("token 1, head 0, col 0"), std::string::npos) << e.note;
}

TEST(check_accuracy, bf16_floor_is_about_two_to_the_minus_nine) {
  const auto ref = normals(100000, false);
  std::vector<float> got(ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) got[i] = round_to_bf16(static_cast<float>(ref[i]));
  const tensor_error e = compare_tensor("o", {got.data(), 100000, 1, 1}, ref.data(), {0}, out_dtype::bf16);
  EXPECT_GT(e.floor_rel_l2, 0x1.0p-10);
  EXPECT_LT(e.floor_rel_l2, 0x1.0p-8);
  // The correctly rounded output is exactly at the floor.
  EXPECT_DOUBLE_EQ(e.rel_l2, e.floor_rel_l2);
  EXPECT_DOUBLE_EQ(e.err_over_floor, 1.0);
  EXPECT_LE(e.max_abs_rel, 0x1.0p-8);

  // fp32 outputs have a floor 2^16 times lower.
  const auto f32 = to_float(ref);
  const tensor_error f = compare_tensor("dg", {f32.data(), 100000, 1, 1}, ref.data(), {0}, out_dtype::fp32);
  EXPECT_GT(f.floor_rel_l2, 0x1.0p-26);
  EXPECT_LT(f.floor_rel_l2, 0x1.0p-24);
  EXPECT_DOUBLE_EQ(f.err_over_floor, 1.0);
  EXPECT_NEAR(e.floor_rel_l2 / f.floor_rel_l2, 65536.0, 65536.0 * 0.05);
}

TEST(check_accuracy, zero_reference_gives_absolute_error) {
  const std::vector<double> ref(4, 0.0);
  const std::vector<float> got{0, 0, 3, 4};
  const tensor_error e = compare_tensor("dA_log", {got.data(), 1, 4, 1}, ref.data(), {0, 1, 2, 3}, out_dtype::fp32);
  EXPECT_TRUE(e.finite);
  EXPECT_DOUBLE_EQ(e.rel_l2, 5.0);
  EXPECT_DOUBLE_EQ(e.max_abs_rel, 4.0);
  EXPECT_EQ(e.floor_rel_l2, 0.0);
}

TEST(check_accuracy, all_finite_names_the_first_bad_element_of_the_selected_heads) {
  const int T = 3, H = 2, W = 4;
  std::vector<float> t(T * H * W, 1.0f);
  std::string where;
  EXPECT_TRUE(all_finite({t.data(), T, H, W}, {}, &where));
  EXPECT_TRUE(where.empty());

  t[(1 * H + 1) * W + 2] = -std::numeric_limits<float>::infinity(); // token 1, head 1, col 2
  EXPECT_TRUE(all_finite({t.data(), T, H, W}, {0}, &where)) << "head 1 is not checked";
  EXPECT_FALSE(all_finite({t.data(), T, H, W}, {1}, &where));
  EXPECT_EQ(where, "Inf at token 1, head 1, col 2");

  t[(0 * H + 0) * W + 3] = std::numeric_limits<float>::quiet_NaN(); // token 0, head 0, col 3
  EXPECT_FALSE(all_finite({t.data(), T, H, W}, {}, &where));
  EXPECT_EQ(where, "NaN at token 0, head 0, col 3");
  EXPECT_FALSE(all_finite({t.data(), T, H, W}, {}, nullptr));
}

} // namespace
} // namespace kda
