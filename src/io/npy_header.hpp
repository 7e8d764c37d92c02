#pragma once
// The header of a NumPy .npy file: the Python dict literal
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// that follows the magic string and the header length. Formatted exactly as numpy 1.23+ writes it
// (same padding, so our files are byte-identical to np.save), parsed as leniently as np.load.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/errors.hpp"

namespace kda::io {

struct npy_header {
  std::string descr; // dtype as numpy spells it, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape; // empty: a 0-d array
};

// The complete preamble for format 1.0: magic, version, header length, dict, padding, '\n'.
// The preamble length is a multiple of 64, as numpy aligns it.
std::string format_npy_preamble(const npy_header& header);

// Parses the dict text (everything after the header-length field). `source` names the file in
// error messages; throws npy_error.
npy_header parse_npy_header_dict(std::string_view text, std::string_view source);

// Python's repr of a shape tuple: "()", "(5,)", "(2, 3)".
std::string shape_repr(const std::vector<std::int64_t>& shape);

} // namespace kda::io
