#pragma once
// Dump directories: every input and output of one row as .npy files plus a manifest.json
// (--dump DIR), and loading a dump's inputs back (--inputs DIR). Format: docs/dump-format.md.
//
// Files: inputs q, k, v, beta, do (bf16 values stored as float32, exact), g or x, A_log, dt_bias
// (float32), cu_seqlens (int32); kernel outputs as given by the caller (float32: o, dq, dk, dv,
// dbeta, dg or dx, dA_log, ddt_bias); FP64 reference outputs as ref_<name> (float64) plus
// ref_heads (int32), the heads the head-compact ref_ arrays hold along their H axis.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/inputs.hpp"
#include "core/row_key.hpp"
#include "io/dump_manifest.hpp"
#include "io/errors.hpp"

namespace kda::io {

dump_info make_dump_info(const row_key& key, const input_spec& spec);

// Writes one row's dump. Never overwrites silently: each tensor name may be written once, and the
// directory must be empty or absent unless `force`. With `force`, the files listed by an earlier
// dump's manifest are removed first; files kda-bench did not write are left in place (a warning
// says so). manifest.json is rewritten (atomically) after every file.
class dump_writer {
public:
  dump_writer(std::filesystem::path dir, dump_info info, bool force);

  // Every input of the row. The gate form and l2n mode must match the dump_info.
  void write_inputs(const host_inputs& in);

  // A kernel output as <name>.npy, float32. `description` defaults to describe_tensor(name).
  void write_output(std::string_view name, std::span<const float> values,
                    const std::vector<std::int64_t>& shape, std::string description = {});

  // An FP64 reference output as ref_<name>.npy, float64 (`name` without the prefix).
  void write_reference(std::string_view name, std::span<const double> values,
                       const std::vector<std::int64_t>& shape, std::string description = {});

  // ref_heads.npy, int32: the heads held by the head-compact ref_ arrays, in their order.
  void write_reference_heads(std::span<const int> heads);

  const std::filesystem::path& dir() const { return m_dir; }
  const dump_manifest& manifest() const { return m_manifest; }

private:
  // Checks `name` is new and a plain identifier, writes it with `write`, records it.
  template <typename Write> void add_file(dump_file_entry entry, Write write);

  std::filesystem::path m_dir;
  dump_manifest m_manifest;
};

struct load_options {
  // The algorithm (kda-algorithm.md) and the kernels have K = V; off only for reference-only
  // experiments with other head sizes.
  bool require_equal_kv = true;
};

struct loaded_inputs {
  host_inputs inputs;
  // The manifest, when the directory has one (dumps written by kda-bench do; inputs prepared by
  // hand with numpy need not). Without it the gate form is taken from which of g.npy / x.npy
  // exists and l2n is left `off`: the caller sets it from the row key.
  std::optional<dump_manifest> manifest;
};

// Reads and validates a dump's inputs. Throws dump_error naming the file, the tensor and the
// element on: a missing file, a wrong dtype or rank, shapes inconsistent with cu_seqlens (T),
// the head count or the head sizes, non-finite values, float32 values that are not exact bf16
// values in a bf16 tensor, cu_seqlens not starting at 0 or not increasing, or a zero-length
// sequence. bf16 tensors may be float32 (exact bf16 values) or uint16 (raw bf16 bits).
loaded_inputs load_dump_inputs(const std::filesystem::path& dir, const load_options& options = {});

} // namespace kda::io
