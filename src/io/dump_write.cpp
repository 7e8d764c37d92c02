#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "io/dump.hpp"
#include "io/npy.hpp"

namespace kda::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_input_names[] = {"q", "k",     "v",       "beta",       "g",
                                              "x", "A_log", "dt_bias", "cu_seqlens", "do"};

bool is_identifier(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool is_input_name(std::string_view s) {
  return std::find(std::begin(k_input_names), std::end(k_input_names), s) !=
         std::end(k_input_names);
}

std::vector<float> widen(const std::vector<bf16_bits>& bits) {
  std::vector<float> out(bits.size());
  std::transform(bits.begin(), bits.end(), out.begin(),
                 [](bf16_bits b) { return bf16_to_float(b); });
  return out;
}

void check_size(std::string_view name, std::size_t have, const std::vector<std::int64_t>& shape) {
  const std::int64_t want = npy_element_count(shape, name);
  if (static_cast<std::int64_t>(have) != want) {
    throw dump_error(fmt::format("dump: tensor '{}' has {} elements, its shape [{}] needs {}", name,
                                 have, fmt::join(shape, ", "), want));
  }
}

// Makes `dir` ready for a new dump, as the dump_writer comment describes.
void prepare_dir(const fs::path& dir, bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw dump_error(fmt::format("{}: exists and is not a directory", dir.string()));
  }
  fs::create_directories(dir, ec);
  if (ec) throw dump_error(fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  if (fs::is_empty(dir)) return;
  if (!force) {
    throw dump_error(fmt::format(
        "{}: directory is not empty; choose another --dump directory or pass --force to replace "
        "the dump in it",
        dir.string()));
  }
  const fs::path manifest = dir / k_manifest_file;
  if (fs::exists(manifest)) {
    try {
      for (const auto& f : read_manifest(manifest).files) {
        // Only plain names: a manifest can never make us delete outside the directory.
        if (f.file.find('/') == std::string::npos && f.file.ends_with(".npy")) {
          fs::remove(dir / f.file, ec);
        }
      }
    } catch (const dump_error& e) {
      spdlog::warn("{} (old files of the same names are overwritten, others stay)", e.what());
    }
    fs::remove(manifest, ec);
  }
  if (!fs::is_empty(dir)) {
    spdlog::warn("{}: files not written by kda-bench are left in place beside the new dump",
                 dir.string());
  }
}

} // namespace

dump_info make_dump_info(const row_key& key, const input_spec& spec) {
  return dump_info{key.str(), spec.scenario_name, spec.decay, spec.seed, key.gate, key.l2n};
}

dump_writer::dump_writer(std::filesystem::path dir, dump_info info, bool force)
    : m_dir(std::move(dir)) {
  prepare_dir(m_dir, force);
  m_manifest.info = std::move(info);
  write_manifest(m_dir / k_manifest_file, m_manifest);
}

template <typename Write> void dump_writer::add_file(dump_file_entry entry, Write write) {
  if (!is_identifier(entry.name)) {
    throw dump_error(
        fmt::format("dump: tensor name '{}' must be letters, digits and '_' only", entry.name));
  }
  if (m_manifest.find(entry.name)) {
    throw dump_error(fmt::format("{}: tensor '{}' was already written to this dump", m_dir.string(),
                                 entry.name));
  }
  entry.file = entry.name + ".npy";
  if (entry.description.empty()) entry.description = describe_tensor(entry.name);
  write(m_dir / entry.file);
  m_manifest.files.push_back(std::move(entry));
  write_manifest(m_dir / k_manifest_file, m_manifest);
}

void dump_writer::write_inputs(const host_inputs& in) {
  const dump_info& info = m_manifest.info;
  if (in.gate != info.gate || in.l2n != info.l2n) {
    throw dump_error(fmt::format("dump: inputs are {}:{} (gate:l2n) but the dump is of row {}",
                                 to_string(in.gate), to_string(in.l2n), info.row));
  }
  const problem_dims& d = in.dims;
  const std::int64_t T = d.tokens(), H = d.heads, K = d.k_dim, V = d.v_dim;
  m_manifest.tokens = T;
  m_manifest.sequences = d.sequences();
  m_manifest.heads = d.heads;
  m_manifest.k_dim = d.k_dim;
  m_manifest.v_dim = d.v_dim;

  const auto bf16 = [&](const char* name, const std::vector<bf16_bits>& bits,
                        std::vector<std::int64_t> shape) {
    check_size(name, bits.size(), shape);
    const std::vector<float> values = widen(bits);
    add_file({name, {}, dump_role::input, "<f4", shape, true, {}},
             [&](const fs::path& p) { write_npy(p, values.data(), shape); });
  };
  const auto f32 = [&](const char* name, const std::vector<float>& values,
                       std::vector<std::int64_t> shape) {
    check_size(name, values.size(), shape);
    add_file({name, {}, dump_role::input, "<f4", shape, false, {}},
             [&](const fs::path& p) { write_npy(p, values.data(), shape); });
  };

  const std::vector<std::int64_t> cu_shape{static_cast<std::int64_t>(d.cu_seqlens.size())};
  add_file({"cu_seqlens", {}, dump_role::input, "<i4", cu_shape, false, {}},
           [&](const fs::path& p) { write_npy(p, d.cu_seqlens.data(), cu_shape); });
  bf16("q", in.q, {T, H, K});
  bf16("k", in.k, {T, H, K});
  bf16("v", in.v, {T, H, V});
  bf16("beta", in.beta, {T, H});
  f32(in.gate == gate_form::g ? "g" : "x", in.gate_input, {T, H, K});
  if (!in.A_log.empty()) f32("A_log", in.A_log, {H});
  if (!in.dt_bias.empty()) f32("dt_bias", in.dt_bias, {H, K});
  bf16("do", in.d_o, {T, H, V});
}

void dump_writer::write_output(std::string_view name, std::span<const float> values,
                               const std::vector<std::int64_t>& shape, std::string description) {
  if (name.starts_with("ref_") || is_input_name(name)) {
    throw dump_error(fmt::format(
        "dump: '{}' cannot name a kernel output (inputs and ref_ names are reserved)", name));
  }
  check_size(name, values.size(), shape);
  add_file({std::string(name), {}, dump_role::output, "<f4", shape, false, std::move(description)},
           [&](const fs::path& p) { write_npy(p, values.data(), shape); });
}

void dump_writer::write_reference(std::string_view name, std::span<const double> values,
                                  const std::vector<std::int64_t>& shape, std::string description) {
  if (name == "heads") throw dump_error("dump: ref_heads is written by write_reference_heads");
  const std::string full = "ref_" + std::string(name);
  check_size(full, values.size(), shape);
  add_file({full, {}, dump_role::reference, "<f8", shape, false, std::move(description)},
           [&](const fs::path& p) { write_npy(p, values.data(), shape); });
}

void dump_writer::write_reference_heads(std::span<const int> heads) {
  const std::vector<std::int32_t> values(heads.begin(), heads.end());
  const std::vector<std::int64_t> shape{static_cast<std::int64_t>(values.size())};
  add_file({"ref_heads", {}, dump_role::reference, "<i4", shape, false, {}},
           [&](const fs::path& p) { write_npy(p, values.data(), shape); });
}

} // namespace kda::io
