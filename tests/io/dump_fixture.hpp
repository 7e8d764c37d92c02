#pragma once
// A small generated row (two sequences of 5 and 7 tokens, 2 heads, K = V = 8) and its dump.
#include <gtest/gtest.h>

#include "core/inputs.hpp"
#include "io/dump.hpp"
#include "support/temp_dir.hpp"

namespace kda::test {

class dump_test : public temp_dir_test {
protected:
  static problem_dims small_dims() { return problem_dims{{0, 5, 12}, 2, 8, 8}; }

  static input_spec spec(l2n_mode l2n = l2n_mode::off) {
    return input_spec{"tiny", 1234, decay_regime::fast, l2n};
  }

  static io::dump_info info_for(gate_form gate, l2n_mode l2n) {
    row_key key{"tiny", gate, l2n, bwd_path::saved};
    return io::make_dump_info(key, spec(l2n));
  }

  host_inputs make_inputs(gate_form gate, l2n_mode l2n = l2n_mode::off) const {
    return generate_inputs(small_dims(), gate, spec(l2n), 1);
  }

  // Dumps a generated row's inputs into dir()/name and returns the directory.
  std::filesystem::path dump_row(gate_form gate, const std::string& name = "dump") const {
    const auto d = dir() / name;
    io::dump_writer w(d, info_for(gate, l2n_mode::off), false);
    w.write_inputs(make_inputs(gate));
    return d;
  }
};

} // namespace kda::test
