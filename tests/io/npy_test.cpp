// .npy read and write: round trips of every dtype and rank, byte equality with files numpy wrote
// (tests/data/io/golden_*.npy), and the error for each kind of bad file.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/npy.hpp"
#include "io/npy_header.hpp"
#include "support/temp_dir.hpp"

namespace kda::io {
namespace {

using kda::test::expect_error;
using shape_t = std::vector<std::int64_t>;

const std::filesystem::path k_golden = std::filesystem::path(KDA_TEST_DATA_DIR) / "io";

template <typename T> class io_npy_round_trip : public kda::test::temp_dir_test {};
using npy_types = ::testing::Types<float, double, std::int32_t, std::int64_t, std::uint16_t>;
TYPED_TEST_SUITE(io_npy_round_trip, npy_types);

TYPED_TEST(io_npy_round_trip, every_rank_and_empty) {
  using T = TypeParam;
  const std::vector<shape_t> shapes = {{}, {5}, {2, 3}, {2, 3, 4}, {0}, {3, 0, 2}};
  for (const auto& shape : shapes) {
    const std::int64_t n = npy_element_count(shape, "test");
    std::vector<T> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      values[i] = static_cast<T>(i % 2 ? -(i * 3) : i * 7 + 1); // negative wraps for uint16: fine
    }
    if (n > 1) values[1] = std::numeric_limits<T>::max();
    const auto path = this->dir() / "a.npy";
    write_npy(path, values.data(), shape);

    const npy_tensor<T> back = read_npy_as<T>(path);
    EXPECT_EQ(back.shape, shape);
    EXPECT_EQ(back.values, values);

    const npy_array raw = read_npy(path);
    EXPECT_EQ(raw.dtype, npy_dtype_of<T>::value);
    EXPECT_EQ(raw.element_count(), n);
    EXPECT_EQ(npy_values<T>(raw, "a.npy"), values);

    // The untyped writer gives the same bytes as the typed one.
    write_npy(this->dir() / "b.npy", make_npy_array(values.data(), shape));
    EXPECT_EQ(this->read_bytes(this->dir() / "b.npy"), this->read_bytes(path));
  }
}

class io_npy_golden : public kda::test::temp_dir_test {};

TEST_F(io_npy_golden, header_bytes_as_numpy_writes_them) {
  // The format 1.0 preamble, built by hand: magic, version, little-endian header length, the dict,
  // numpy's 21-digit growth room after it, space padding to 64-byte alignment, '\n'.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  dict.resize(127 - 10, ' ');
  dict += '\n';
  const std::string expected = std::string("\x93NUMPY\x01\x00", 8) + '\x76' + '\x00' + dict;
  ASSERT_EQ(expected.size(), 128u);

  const std::string file = read_bytes(k_golden / "golden_f4_2x3.npy");
  ASSERT_EQ(file.size(), 128u + 6 * 4);
  EXPECT_EQ(file.substr(0, 128), expected);
  EXPECT_EQ(format_npy_preamble({"<f4", false, {2, 3}}), expected);
}

TEST_F(io_npy_golden, reads_numpy_files) {
  const auto f4 = read_npy_as<float>(k_golden / "golden_f4_2x3.npy");
  EXPECT_EQ(f4.shape, (shape_t{2, 3}));
  EXPECT_EQ(f4.values, (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));

  const auto f8 = read_npy_as<double>(k_golden / "golden_f8_0d.npy");
  EXPECT_EQ(f8.shape, shape_t{});
  EXPECT_EQ(f8.values, std::vector<double>{2.5});

  const auto i4 = read_npy_as<std::int32_t>(k_golden / "golden_i4_3.npy");
  EXPECT_EQ(i4.shape, shape_t{3});
  EXPECT_EQ(i4.values, (std::vector<std::int32_t>{0, -7, 2147483647}));

  const auto i8 = read_npy_as<std::int64_t>(k_golden / "golden_i8_2x2.npy");
  EXPECT_EQ(i8.shape, (shape_t{2, 2}));
  EXPECT_EQ(i8.values,
            (std::vector<std::int64_t>{1, -2, std::int64_t{1} << 40, -(std::int64_t{1} << 62)}));

  const auto u2 = read_npy_as<std::uint16_t>(k_golden / "golden_u2_2x1x2.npy");
  EXPECT_EQ(u2.shape, (shape_t{2, 1, 2}));
  EXPECT_EQ(u2.values, (std::vector<std::uint16_t>{0x3f80, 0xbf80, 0x0000, 0xffff}));
}

TEST_F(io_npy_golden, writes_the_bytes_numpy_writes) {
  for (const char* name : {"golden_f4_2x3.npy", "golden_f8_0d.npy", "golden_i4_3.npy",
                           "golden_i8_2x2.npy", "golden_u2_2x1x2.npy"}) {
    const npy_array a = read_npy(k_golden / name);
    write_npy(dir() / name, a);
    EXPECT_EQ(read_bytes(dir() / name), read_bytes(k_golden / name)) << name;
  }
}

TEST_F(io_npy_golden, preamble_is_64_byte_aligned) {
  for (const shape_t& s :
       {shape_t{}, shape_t{1}, shape_t{123456789}, shape_t{1, 2, 3, 4, 5, 6}, shape_t{7, 7, 7}}) {
    for (const char* dtype : {"<f4", "<u2"}) {
      const std::string p = format_npy_preamble({dtype, false, s});
      EXPECT_EQ(p.size() % 64, 0u) << shape_repr(s);
      EXPECT_EQ(p.back(), '\n');
      EXPECT_EQ(parse_npy_header_dict(p.substr(10), "t").shape, s);
    }
  }
}

TEST_F(io_npy_golden, reads_format_2_and_lenient_dicts) {
  // Format 2.0 has a 4-byte header length; dict keys may come in any order, with double quotes.
  const std::string dict = "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}\n";
  std::string file = std::string("\x93NUMPY\x02\x00", 8);
  file += static_cast<char>(dict.size());
  file += std::string(3, '\0');
  file += dict;
  file += std::string("\x05\x00\x00\x00\x06\x00\x00\x00", 8);
  write_bytes(dir() / "v2.npy", file);
  const auto t = read_npy_as<std::int32_t>(dir() / "v2.npy");
  EXPECT_EQ(t.values, (std::vector<std::int32_t>{5, 6}));
}

class io_npy_errors : public kda::test::temp_dir_test {
protected:
  // A format 1.0 file with the given dict text and data bytes.
  void write_npy_text(const std::string& name, std::string dict, const std::string& data) {
    dict += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(dict.size() & 0xff);
    file += static_cast<char>(dict.size() >> 8);
    write_bytes(dir() / name, file + dict + data);
  }
};

TEST_F(io_npy_errors, missing_file) {
  expect_error<npy_error>([&] { read_npy(dir() / "nope.npy"); }, {"nope.npy", "cannot open"});
}

TEST_F(io_npy_errors, bad_magic) {
  write_bytes(dir() / "bad.npy", "PK\x03\x04 this is a zip");
  expect_error<npy_error>([&] { read_npy(dir() / "bad.npy"); }, {"bad.npy", "bad magic"});
  write_bytes(dir() / "short.npy", "\x93NU");
  expect_error<npy_error>([&] { read_npy(dir() / "short.npy"); }, {"short.npy", "bad magic"});
}

TEST_F(io_npy_errors, unsupported_version) {
  write_bytes(dir() / "v9.npy", std::string("\x93NUMPY\x09\x00\x10\x00", 10));
  expect_error<npy_error>([&] { read_npy(dir() / "v9.npy"); }, {"v9.npy", "version 9.0"});
}

TEST_F(io_npy_errors, unsupported_dtype) {
  write_npy_text("f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", "ab");
  expect_error<npy_error>([&] { read_npy(dir() / "f2.npy"); },
                          {"f2.npy", "unsupported dtype '<f2'"});
  write_npy_text("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
  expect_error<npy_error>([&] { read_npy(dir() / "be.npy"); },
                          {"be.npy", "'>f4'", "little-endian"});
}

TEST_F(io_npy_errors, fortran_order) {
  expect_error<npy_error>([&] { read_npy(k_golden / "golden_f4_fortran.npy"); },
                          {"golden_f4_fortran.npy", "Fortran order", "(2, 3)"});
  // Rank 1 in "Fortran order" is the same bytes: accepted.
  write_npy_text("f1.npy", "{'descr': '<u2', 'fortran_order': True, 'shape': (1,), }", "ab");
  EXPECT_EQ(read_npy(dir() / "f1.npy").shape, shape_t{1});
}

TEST_F(io_npy_errors, truncated_data_and_trailing_bytes) {
  std::string bytes = read_bytes(k_golden / "golden_f4_2x3.npy");
  write_bytes(dir() / "cut.npy", bytes.substr(0, bytes.size() - 4));
  expect_error<npy_error>([&] { read_npy(dir() / "cut.npy"); },
                          {"cut.npy", "truncated data", "needs 24 bytes", "holds 20"});
  write_bytes(dir() / "long.npy", bytes + "xy");
  expect_error<npy_error>([&] { read_npy(dir() / "long.npy"); },
                          {"long.npy", "2 unexpected bytes"});
  write_bytes(dir() / "header.npy", bytes.substr(0, 40));
  expect_error<npy_error>([&] { read_npy(dir() / "header.npy"); },
                          {"header.npy", "truncated .npy header"});
}

TEST_F(io_npy_errors, malformed_header) {
  write_npy_text("nokey.npy", "{'descr': '<f4', 'shape': (1,), }", "abcd");
  expect_error<npy_error>([&] { read_npy(dir() / "nokey.npy"); }, {"nokey.npy", "fortran_order"});
  write_npy_text("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                 "abcd");
  expect_error<npy_error>([&] { read_npy(dir() / "extra.npy"); }, {"extra.npy", "'x'"});
  write_npy_text("neg.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "");
  expect_error<npy_error>([&] { read_npy(dir() / "neg.npy"); }, {"neg.npy", "shape"});
}

TEST_F(io_npy_errors, dtype_mismatch_in_typed_read) {
  expect_error<npy_error>([&] { read_npy_as<float>(k_golden / "golden_f8_0d.npy"); },
                          {"golden_f8_0d.npy", "<f8 (float64)", "expected <f4 (float32)"});
}

TEST_F(io_npy_errors, array_size_mismatch_on_write) {
  npy_array a{"<f4", {2, 2}, std::vector<std::byte>(12)};
  expect_error<npy_error>([&] { write_npy(dir() / "w.npy", a); }, {"w.npy", "needs 16 bytes"});
  a.dtype = "<c8";
  expect_error<npy_error>([&] { write_npy(dir() / "w.npy", a); }, {"unsupported dtype '<c8'"});
}

TEST_F(io_npy_errors, unwritable_path) {
  const float x = 1.0f;
  expect_error<npy_error>([&] { write_npy(dir() / "no" / "such" / "x.npy", &x, {}); },
                          {"x.npy", "cannot open for writing"});
}

} // namespace
} // namespace kda::io
