#pragma once
// manifest.json of a dump directory: what row the dump is of, and every file in it with its dtype,
// shape and meaning. Written by dump_writer after every file, so a dump cut short by a crash still
// describes what it holds. Schema: docs/dump-format.md.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/variant.hpp"
#include "io/errors.hpp"

namespace kda::io {

inline constexpr int k_dump_format_version = 1;
inline constexpr std::string_view k_manifest_file = "manifest.json";

// What the dumped row is. `row` is the row key's canonical spelling (e.g. "m2:g:off:saved"); it is
// kept as text so that dumps of scenarios unknown to this build still load.
struct dump_info {
  std::string row;
  std::string scenario;
  decay_regime decay = decay_regime::normal;
  std::uint64_t seed = 0;
  gate_form gate = gate_form::g;
  l2n_mode l2n = l2n_mode::off;
};

enum class dump_role { input, output, reference };
std::string_view to_string(dump_role r); // "input", "output", "reference"

struct dump_file_entry {
  std::string name; // tensor name: "q", "dq", "ref_dq", "ref_heads"
  std::string file; // file name inside the dump directory: "q.npy"
  dump_role role = dump_role::input;
  std::string dtype; // numpy descr: "<f4"
  std::vector<std::int64_t> shape;
  bool bf16_values = false; // float32 file holding exact bf16 values
  std::string description;  // what it is, for a reader of the manifest
};

struct dump_manifest {
  int format_version = k_dump_format_version;
  dump_info info;
  // Sizes, for a human reading the manifest; the files are authoritative.
  std::int64_t tokens = 0;
  int sequences = 0, heads = 0, k_dim = 0, v_dim = 0;
  std::vector<dump_file_entry> files;

  const dump_file_entry* find(std::string_view name) const;
};

void to_json(nlohmann::ordered_json& j, const dump_manifest& m);
void from_json(const nlohmann::ordered_json& j, dump_manifest& m);

// Reads and validates manifest.json; dump_error naming the file and field on any problem.
dump_manifest read_manifest(const std::filesystem::path& file);
// Writes atomically (a temporary file renamed over the old one).
void write_manifest(const std::filesystem::path& file, const dump_manifest& m);

// Default description of a known tensor name (inputs, kernel outputs, ref_ arrays); empty if
// unknown.
std::string describe_tensor(std::string_view name);

} // namespace kda::io
