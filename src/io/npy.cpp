#include "io/npy.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "io/npy_header.hpp"

namespace kda::io {

// Bytes are copied to and from memory as they are: the file format and the host agree.
static_assert(std::endian::native == std::endian::little,
              "kda-bench io assumes a little-endian host");

namespace {

constexpr std::string_view k_magic = "\x93NUMPY";

struct dtype_info {
  std::string_view descr;
  std::string_view name;
  std::size_t size;
};
constexpr dtype_info k_dtypes[] = {
    {"<f4", "float32", 4}, {"<f8", "float64", 8}, {"<i4", "int32", 4},
    {"<i8", "int64", 8},   {"<u2", "uint16", 2},
};

std::string path_text(const std::filesystem::path& p) { return p.string(); }

// A file positioned at the start of its data, with the header already validated.
struct opened_npy {
  std::ifstream in;
  npy_header header;
  std::size_t data_bytes = 0;
};

opened_npy open_npy(const std::filesystem::path& path) {
  const std::string src = path_text(path);
  opened_npy f;
  f.in.open(path, std::ios::binary);
  if (!f.in) {
    throw npy_error(fmt::format("{}: cannot open for reading: {}", src, std::strerror(errno)));
  }
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (ec) throw npy_error(fmt::format("{}: cannot read its size: {}", src, ec.message()));

  char magic[8] = {};
  f.in.read(magic, sizeof magic);
  if (f.in.gcount() < 8 || std::string_view(magic, 6) != k_magic) {
    throw npy_error(fmt::format(
        "{}: not a .npy file (bad magic: the file must start with \\x93NUMPY, it is {} bytes "
        "long)",
        src, file_size));
  }
  const int major = static_cast<unsigned char>(magic[6]);
  const int minor = static_cast<unsigned char>(magic[7]);
  std::size_t len_bytes = 0;
  if (major == 1 && minor == 0) {
    len_bytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    len_bytes = 4;
  } else {
    throw npy_error(fmt::format("{}: unsupported .npy format version {}.{} (reads 1.0, 2.0, 3.0)",
                                src, major, minor));
  }
  unsigned char len_field[4] = {};
  f.in.read(reinterpret_cast<char*>(len_field), static_cast<std::streamsize>(len_bytes));
  if (static_cast<std::size_t>(f.in.gcount()) != len_bytes) {
    throw npy_error(fmt::format("{}: truncated .npy header (file is {} bytes)", src, file_size));
  }
  std::size_t header_len = 0;
  for (std::size_t i = len_bytes; i-- > 0;) header_len = header_len << 8 | len_field[i];
  const std::size_t preamble = 8 + len_bytes + header_len;
  if (preamble > file_size) {
    throw npy_error(
        fmt::format("{}: truncated .npy header: it claims {} bytes, the file is {} bytes", src,
                    header_len, file_size));
  }
  std::string dict(header_len, '\0');
  f.in.read(dict.data(), static_cast<std::streamsize>(header_len));
  f.header = parse_npy_header_dict(dict, src);

  const std::size_t elem = npy_dtype_size(f.header.descr, src);
  // For rank <= 1 Fortran and C order are the same bytes.
  if (f.header.fortran_order && f.header.shape.size() > 1) {
    throw npy_error(fmt::format("{}: array of shape {} is in Fortran order; save a C-order array "
                                "(np.save(path, np.ascontiguousarray(a)))",
                                src, shape_repr(f.header.shape)));
  }
  const std::int64_t count = npy_element_count(f.header.shape, src);
  if (static_cast<std::uint64_t>(count) > std::numeric_limits<std::size_t>::max() / elem) {
    throw npy_error(fmt::format("{}: shape {} is too large", src, shape_repr(f.header.shape)));
  }
  f.data_bytes = static_cast<std::size_t>(count) * elem;
  const std::uintmax_t have = file_size - preamble;
  if (have < f.data_bytes) {
    throw npy_error(fmt::format(
        "{}: truncated data: shape {} of {} needs {} bytes, the file holds {} after its header",
        src, shape_repr(f.header.shape), f.header.descr, f.data_bytes, have));
  }
  if (have > f.data_bytes) {
    throw npy_error(fmt::format(
        "{}: {} unexpected bytes after the data of shape {} of {} (not a single-array .npy?)", src,
        have - f.data_bytes, shape_repr(f.header.shape), f.header.descr));
  }
  return f;
}

void read_data(opened_npy& f, void* dst, const std::filesystem::path& path) {
  f.in.read(static_cast<char*>(dst), static_cast<std::streamsize>(f.data_bytes));
  if (static_cast<std::size_t>(f.in.gcount()) != f.data_bytes) {
    throw npy_error(fmt::format("{}: read error after {} of {} data bytes", path_text(path),
                                f.in.gcount(), f.data_bytes));
  }
}

void write_file(const std::filesystem::path& path, const npy_header& header, const void* data,
                std::size_t bytes) {
  const std::string src = path_text(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw npy_error(fmt::format("{}: cannot open for writing: {}", src, std::strerror(errno)));
  }
  const std::string preamble = format_npy_preamble(header);
  out.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  if (bytes > 0) out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  out.close();
  if (!out) throw npy_error(fmt::format("{}: write failed: {}", src, std::strerror(errno)));
}

void check_dtype(std::string_view have, std::string_view want, std::string_view source) {
  if (have != want) {
    throw npy_error(fmt::format("{}: dtype {} ({}), expected {} ({})", source, have,
                                npy_dtype_name(have), want, npy_dtype_name(want)));
  }
}

} // namespace

std::int64_t npy_array::element_count() const { return npy_element_count(shape, "npy array"); }

std::size_t npy_dtype_size(std::string_view dtype, std::string_view source) {
  for (const auto& d : k_dtypes) {
    if (d.descr == dtype) return d.size;
  }
  throw npy_error(fmt::format(
      "{}: unsupported dtype '{}' (kda-bench reads little-endian <f4, <f8, <i4, <i8, <u2)", source,
      dtype));
}

std::string_view npy_dtype_name(std::string_view dtype) {
  for (const auto& d : k_dtypes) {
    if (d.descr == dtype) return d.name;
  }
  return dtype;
}

std::int64_t npy_element_count(const std::vector<std::int64_t>& shape, std::string_view source) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0)
      throw npy_error(fmt::format("{}: negative dimension in shape {}", source, shape_repr(shape)));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      throw npy_error(fmt::format("{}: shape {} overflows", source, shape_repr(shape)));
    }
    n *= d;
  }
  return n;
}

void write_npy(const std::filesystem::path& path, const npy_array& array) {
  const std::string src = path_text(path);
  const std::size_t elem = npy_dtype_size(array.dtype, src);
  const auto count = static_cast<std::size_t>(npy_element_count(array.shape, src));
  if (array.data.size() != count * elem) {
    throw npy_error(fmt::format("{}: shape {} of {} needs {} bytes, the array holds {}", src,
                                shape_repr(array.shape), array.dtype, count * elem,
                                array.data.size()));
  }
  write_file(path, npy_header{array.dtype, false, array.shape}, array.data.data(),
             array.data.size());
}

npy_array read_npy(const std::filesystem::path& path) {
  opened_npy f = open_npy(path);
  npy_array a{f.header.descr, f.header.shape, std::vector<std::byte>(f.data_bytes)};
  read_data(f, a.data.data(), path);
  return a;
}

template <npy_element T>
void write_npy(const std::filesystem::path& path, const T* data,
               const std::vector<std::int64_t>& shape) {
  const auto count = static_cast<std::size_t>(npy_element_count(shape, path_text(path)));
  write_file(path, npy_header{std::string(npy_dtype_of<T>::value), false, shape}, data,
             count * sizeof(T));
}

template <npy_element T> npy_tensor<T> read_npy_as(const std::filesystem::path& path) {
  opened_npy f = open_npy(path);
  check_dtype(f.header.descr, npy_dtype_of<T>::value, path_text(path));
  npy_tensor<T> t{f.header.shape, std::vector<T>(f.data_bytes / sizeof(T))};
  read_data(f, t.values.data(), path);
  return t;
}

template <npy_element T>
std::vector<T> npy_values(const npy_array& array, std::string_view source) {
  check_dtype(array.dtype, npy_dtype_of<T>::value, source);
  const auto count = static_cast<std::size_t>(npy_element_count(array.shape, source));
  if (array.data.size() != count * sizeof(T)) {
    throw npy_error(fmt::format("{}: shape {} of {} needs {} bytes, the array holds {}", source,
                                shape_repr(array.shape), array.dtype, count * sizeof(T),
                                array.data.size()));
  }
  std::vector<T> v(count);
  if (count > 0) std::memcpy(v.data(), array.data.data(), count * sizeof(T));
  return v;
}

template <npy_element T>
npy_array make_npy_array(const T* data, const std::vector<std::int64_t>& shape) {
  const auto count = static_cast<std::size_t>(npy_element_count(shape, "npy array"));
  npy_array a{std::string(npy_dtype_of<T>::value), shape,
              std::vector<std::byte>(count * sizeof(T))};
  if (count > 0) std::memcpy(a.data.data(), data, count * sizeof(T));
  return a;
}

#define KDA_IO_NPY_INSTANTIATE(T)                                                                  \
  template void write_npy<T>(const std::filesystem::path&, const T*,                               \
                             const std::vector<std::int64_t>&);                                    \
  template npy_tensor<T> read_npy_as<T>(const std::filesystem::path&);                             \
  template std::vector<T> npy_values<T>(const npy_array&, std::string_view);                       \
  template npy_array make_npy_array<T>(const T*, const std::vector<std::int64_t>&);
KDA_IO_NPY_INSTANTIATE(float)
KDA_IO_NPY_INSTANTIATE(double)
KDA_IO_NPY_INSTANTIATE(std::int32_t)
KDA_IO_NPY_INSTANTIATE(std::int64_t)
KDA_IO_NPY_INSTANTIATE(std::uint16_t)
#undef KDA_IO_NPY_INSTANTIATE

} // namespace kda::io
