// Every validation error of load_dump_inputs: each starts from a good dump, breaks one thing, and
// checks the message names the file and what is wrong.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "dump_fixture.hpp"
#include "io/npy.hpp"

namespace kda::io {
namespace {

using kda::test::expect_error;

class io_dump_load_errors : public kda::test::dump_test {
protected:
  void SetUp() override {
    dump_test::SetUp();
    m_dump = dump_row(gate_form::raw);
  }
  std::filesystem::path file(const char* name) const { return m_dump / name; }
  void expect_load_error(std::initializer_list<std::string_view> parts) const {
    expect_error<dump_error>([&] { load_dump_inputs(m_dump); }, parts);
  }
  // Rewrites a float32 file with element `i` replaced.
  void poke(const char* name, std::size_t i, float value) const {
    auto t = read_npy_as<float>(file(name));
    t.values.at(i) = value;
    write_npy(file(name), t.values.data(), t.shape);
  }
  void write_cu(std::vector<std::int32_t> cu) const {
    write_npy(file("cu_seqlens.npy"), cu.data(), {static_cast<std::int64_t>(cu.size())});
  }

  std::filesystem::path m_dump;
};

TEST_F(io_dump_load_errors, missing_directory) {
  expect_error<dump_error>([&] { load_dump_inputs(dir() / "nowhere"); },
                           {"nowhere", "no such dump directory"});
}

TEST_F(io_dump_load_errors, missing_file) {
  std::filesystem::remove(file("k.npy"));
  expect_load_error({"missing k.npy", "keys [T, H, K]"});
}

TEST_F(io_dump_load_errors, raw_form_needs_A_log) {
  std::filesystem::remove(file("A_log.npy"));
  expect_load_error({"missing A_log.npy"});
}

TEST_F(io_dump_load_errors, wrong_dtype) {
  const std::vector<double> g(12 * 2 * 8, -0.5);
  write_npy(file("x.npy"), g.data(), {12, 2, 8});
  expect_load_error({"x.npy", "dtype <f8 (float64)", "expected <f4 (float32)"});
}

TEST_F(io_dump_load_errors, wrong_dtype_for_bf16_tensor) {
  const std::vector<std::int32_t> b(12 * 2, 1);
  write_npy(file("beta.npy"), b.data(), {12, 2});
  expect_load_error({"beta.npy", "dtype <i4 (int32)", "bf16"});
}

TEST_F(io_dump_load_errors, wrong_cu_seqlens_dtype) {
  const std::vector<float> cu{0, 5, 12};
  write_npy(file("cu_seqlens.npy"), cu.data(), {3});
  expect_load_error({"cu_seqlens.npy", "<f4", "int32"});
}

TEST_F(io_dump_load_errors, tokens_inconsistent_with_cu_seqlens) {
  write_cu({0, 5, 11});
  expect_load_error({"q.npy", "(12, 2, 8)", "T = 11"});
}

TEST_F(io_dump_load_errors, heads_inconsistent) {
  const std::vector<float> beta(12 * 3, 0.5f);
  write_npy(file("beta.npy"), beta.data(), {12, 3});
  expect_load_error({"beta.npy", "shape (12, 3)", "[T, H] = (12, 2)"});
  const std::vector<float> a(3, 0.5f);
  write_npy(file("beta.npy"), beta.data(), {12, 2}); // restore a valid beta shape
  write_npy(file("A_log.npy"), a.data(), {3});
  expect_load_error({"A_log.npy", "shape (3,)", "[H] = (2,)"});
}

TEST_F(io_dump_load_errors, head_size_inconsistent) {
  const std::vector<float> x(12 * 2 * 4, 0.5f);
  write_npy(file("k.npy"), x.data(), {12, 2, 4});
  expect_load_error({"k.npy", "shape (12, 2, 4)", "(12, 2, 8)"});
}

TEST_F(io_dump_load_errors, k_differs_from_v) {
  const std::vector<float> v(12 * 2 * 16, 0.5f);
  write_npy(file("v.npy"), v.data(), {12, 2, 16});
  write_npy(file("do.npy"), v.data(), {12, 2, 16});
  expect_load_error({"K = 8", "V = 16"});
  // Allowed for reference-only work.
  EXPECT_EQ(load_dump_inputs(m_dump, load_options{false}).inputs.dims.v_dim, 16);
}

TEST_F(io_dump_load_errors, non_finite_values) {
  poke("x.npy", 17, std::numeric_limits<float>::quiet_NaN());
  expect_load_error({"x.npy", "element [1, 0, 1]", "flat index 17", "nan", "finite"});
}

TEST_F(io_dump_load_errors, non_finite_bf16_value) {
  poke("q.npy", 3, -std::numeric_limits<float>::infinity());
  expect_load_error({"q.npy", "element [0, 0, 3]", "-inf"});
}

TEST_F(io_dump_load_errors, value_not_exact_bf16) {
  poke("v.npy", 20, 0.1f);
  expect_load_error(
      {"v.npy", "element [1, 0, 4]", "0.100000001", "not a bf16 value", "nearest: 0.100097656"});
}

TEST_F(io_dump_load_errors, cu_seqlens_not_starting_at_zero) {
  write_cu({1, 5, 12});
  expect_load_error({"cu_seqlens.npy", "cu_seqlens[0] = 1", "must be 0"});
}

TEST_F(io_dump_load_errors, cu_seqlens_not_increasing) {
  write_cu({0, 7, 5, 12});
  expect_load_error({"cu_seqlens.npy", "not increasing", "cu_seqlens[2] = 5 < cu_seqlens[1] = 7"});
}

TEST_F(io_dump_load_errors, zero_length_sequence) {
  write_cu({0, 5, 5, 12});
  expect_load_error({"cu_seqlens.npy", "sequence 1 has zero length"});
}

TEST_F(io_dump_load_errors, cu_seqlens_rank_and_length) {
  write_cu({0});
  expect_load_error({"cu_seqlens.npy", "shape (1,)", "N >= 1"});
}

TEST_F(io_dump_load_errors, both_gate_forms_without_manifest) {
  std::filesystem::remove(file("manifest.json"));
  std::filesystem::copy_file(file("x.npy"), file("g.npy"));
  expect_load_error({"both g.npy and x.npy"});
}

TEST_F(io_dump_load_errors, bad_manifest) {
  { std::ofstream(file("manifest.json")) << "{\"format_version\": 1, \"row\": 3}"; }
  expect_load_error({"manifest.json", "field 'row'", "3"});
  { std::ofstream(file("manifest.json")) << "{\"format_version\": 7}"; }
  expect_load_error({"manifest.json", "format_version 7"});
  { std::ofstream(file("manifest.json")) << "{not json"; }
  expect_load_error({"manifest.json", "not valid JSON"});
}

TEST_F(io_dump_load_errors, corrupt_npy_is_named) {
  write_bytes(file("do.npy"), "garbage");
  expect_load_error({"do.npy", "bad magic"});
}

} // namespace
} // namespace kda::io
