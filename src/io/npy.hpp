#pragma once
// NumPy .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read): little-endian C-order arrays of
// any rank, 0-d included. The one tensor exchange format of kda-bench: dumps (--dump), loaded
// inputs (--inputs), and anything a kernel engineer wants to open with np.load.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/errors.hpp"

namespace kda::io {

// An array with its dtype as numpy spells it ("<f4", "<f8", "<i4", "<i8", "<u2") and its raw
// little-endian bytes in C order.
struct npy_array {
  std::string dtype;
  std::vector<std::int64_t> shape; // empty: a 0-d array of one element
  std::vector<std::byte> data;

  std::int64_t element_count() const;
};

// The C++ element type of each supported dtype.
template <typename T> struct npy_dtype_of;
template <> struct npy_dtype_of<float> { static constexpr std::string_view value = "<f4"; };
template <> struct npy_dtype_of<double> { static constexpr std::string_view value = "<f8"; };
template <> struct npy_dtype_of<std::int32_t> { static constexpr std::string_view value = "<i4"; };
template <> struct npy_dtype_of<std::int64_t> { static constexpr std::string_view value = "<i8"; };
template <> struct npy_dtype_of<std::uint16_t> { static constexpr std::string_view value = "<u2"; };

template <typename T>
concept npy_element = requires {
  npy_dtype_of<T>::value;
};

// Bytes per element of a supported dtype; throws npy_error naming `source` for any other.
std::size_t npy_dtype_size(std::string_view dtype, std::string_view source = "npy");
// "float32" for "<f4" and so on, for messages; the dtype itself if unknown.
std::string_view npy_dtype_name(std::string_view dtype);

// Product of the dimensions (1 for 0-d); throws npy_error if negative or overflowing.
std::int64_t npy_element_count(const std::vector<std::int64_t>& shape, std::string_view source);

// Whole-array read and write. Errors (npy_error) name the file: cannot open, bad magic,
// unsupported version or dtype, Fortran order, truncated data, trailing bytes.
void write_npy(const std::filesystem::path& path, const npy_array& array);
npy_array read_npy(const std::filesystem::path& path);

// Typed forms. write_npy reads npy_element_count(shape) elements from `data`.
template <npy_element T>
void write_npy(const std::filesystem::path& path, const T* data,
               const std::vector<std::int64_t>& shape);

template <npy_element T> struct npy_tensor {
  std::vector<std::int64_t> shape;
  std::vector<T> values;
};

// Reads a file whose dtype must be exactly npy_dtype_of<T> (no silent conversion).
template <npy_element T> npy_tensor<T> read_npy_as(const std::filesystem::path& path);

// An in-memory array as typed values; throws npy_error naming `source` on a dtype mismatch.
template <npy_element T> std::vector<T> npy_values(const npy_array& array, std::string_view source);

template <npy_element T>
npy_array make_npy_array(const T* data, const std::vector<std::int64_t>& shape);

} // namespace kda::io
