#pragma once
// The exception of the report layer. Messages name the file, the field and the value.
#include <stdexcept>

namespace kda::report {

struct report_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace kda::report
