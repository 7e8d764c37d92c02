#include "cli/row_io.hpp"

#include <stdexcept>

#include "io/dump.hpp"

namespace kda::cli {

host_inputs make_row_inputs(const row_job_options& o, const scenario& scen, const row_key& key, decay_regime decay) {
  if (!o.inputs_dir.empty()) {
    io::loaded_inputs li = io::load_dump_inputs(o.inputs_dir);
    if (li.inputs.gate != key.gate) {
      throw std::invalid_argument("--inputs " + o.inputs_dir + " holds the " + std::string(to_string(li.inputs.gate)) +
                                  " gate form but the row key asks for " + std::string(to_string(key.gate)));
    }
    li.inputs.l2n = key.l2n;
    return std::move(li.inputs);
  }
  return generate_inputs(dims_of(scen), key.gate, input_spec{scen.name, o.seed, decay, key.l2n}, o.threads);
}

host_outputs run_once(device_row& row, bool with_bwd) {
  row.poison_outputs();
  row.run(op_kind::fwd, nullptr);
  if (with_bwd) row.run(op_kind::bwd, nullptr);
  return row.download(with_bwd);
}

} // namespace kda::cli
