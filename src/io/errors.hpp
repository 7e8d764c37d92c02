#pragma once
// Exceptions of the io layer. Messages name the file, the field or tensor, and the offending value,
// so they can be shown to the user as they are.
#include <stdexcept>

namespace kda::io {

// A .npy file that cannot be read or written.
struct npy_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A dump directory that cannot be written, or whose inputs fail validation on load.
struct dump_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace kda::io
