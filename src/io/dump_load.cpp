#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/dump.hpp"
#include "io/npy.hpp"
#include "io/npy_header.hpp"

namespace kda::io {
namespace {

namespace fs = std::filesystem;

// "[0, 3, 17]": the multi-index of flat element `i` in a C-order array of `shape`.
std::string index_text(const std::vector<std::int64_t>& shape, std::int64_t i) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] > 0 ? i % shape[d] : 0;
    i = shape[d] > 0 ? i / shape[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

// Reads the files of one dump directory, with every message naming the file.
class input_reader {
public:
  explicit input_reader(fs::path dir) : m_dir(std::move(dir)) {}

  fs::path path(std::string_view name) const { return m_dir / (std::string(name) + ".npy"); }
  std::string where(std::string_view name) const { return path(name).string(); }
  bool has(std::string_view name) const { return fs::exists(path(name)); }

  npy_array read(std::string_view name) const {
    if (!has(name)) {
      throw dump_error(
          fmt::format("{}: missing {}.npy ({})", m_dir.string(), name, describe_tensor(name)));
    }
    try {
      return read_npy(path(name));
    } catch (const npy_error& e) {
      throw dump_error(e.what());
    }
  }

  // Throws unless `a` has exactly `want`; `meaning` spells the expected dims ("[T, H, K]").
  void check_shape(std::string_view name, const npy_array& a, const std::vector<std::int64_t>& want,
                   std::string_view meaning) const {
    if (a.shape != want) {
      throw dump_error(fmt::format("{}: shape {}, expected {} = {}", where(name),
                                   shape_repr(a.shape), meaning, shape_repr(want)));
    }
  }

  std::vector<float> load_f32(std::string_view name, const std::vector<std::int64_t>& shape,
                              std::string_view meaning) const {
    const npy_array a = read(name);
    check_dtype(name, a, "<f4", "float32");
    check_shape(name, a, shape, meaning);
    std::vector<float> v = npy_values<float>(a, where(name));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!std::isfinite(v[i])) fail_non_finite(name, a.shape, i, v[i]);
    }
    return v;
  }

  // A bf16 tensor: float32 holding exact bf16 values, or uint16 raw bf16 bits.
  std::vector<bf16_bits> load_bf16(std::string_view name, const std::vector<std::int64_t>& shape,
                                   std::string_view meaning) const {
    const npy_array a = read(name);
    if (a.dtype != "<f4" && a.dtype != "<u2") {
      throw dump_error(
          fmt::format("{}: dtype {} ({}); a bf16 tensor must be float32 holding bf16 values "
                      "(t.to(torch.bfloat16).float()) or uint16 raw bf16 bits",
                      where(name), a.dtype, npy_dtype_name(a.dtype)));
    }
    check_shape(name, a, shape, meaning);
    std::vector<bf16_bits> bits;
    if (a.dtype == "<u2") {
      bits = npy_values<std::uint16_t>(a, where(name));
    } else {
      const std::vector<float> v = npy_values<float>(a, where(name));
      bits.resize(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!std::isfinite(v[i])) fail_non_finite(name, a.shape, i, v[i]);
        // Exact bf16 values are float32 values whose low 16 bits are zero. Not rounded here:
        // the kernels and the reference must see the numbers the user gave (docs/dump-format.md).
        if ((float_bits(v[i]) & 0xffffu) != 0) {
          throw dump_error(fmt::format(
              "{}: element {} (flat index {}) = {:.9g} is not a bf16 value (nearest: {:.9g}); "
              "round bf16 tensors to bf16 before saving",
              where(name), index_text(a.shape, static_cast<std::int64_t>(i)), i, v[i],
              round_to_bf16(v[i])));
        }
        bits[i] = static_cast<bf16_bits>(float_bits(v[i]) >> 16);
      }
    }
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if (!std::isfinite(bf16_to_float(bits[i]))) {
        fail_non_finite(name, a.shape, i, bf16_to_float(bits[i]));
      }
    }
    return bits;
  }

  std::vector<std::int32_t> load_cu_seqlens() const {
    const npy_array a = read("cu_seqlens");
    std::vector<std::int64_t> v;
    if (a.dtype == "<i4") {
      const auto v32 = npy_values<std::int32_t>(a, where("cu_seqlens"));
      v.assign(v32.begin(), v32.end());
    } else if (a.dtype == "<i8") {
      v = npy_values<std::int64_t>(a, where("cu_seqlens"));
    } else {
      throw dump_error(fmt::format("{}: dtype {} ({}), expected <i4 (int32) or <i8 (int64)",
                                   where("cu_seqlens"), a.dtype, npy_dtype_name(a.dtype)));
    }
    if (a.shape.size() != 1 || v.size() < 2) {
      throw dump_error(fmt::format("{}: shape {}, expected (N + 1,) with N >= 1 sequences",
                                   where("cu_seqlens"), shape_repr(a.shape)));
    }
    if (v[0] != 0) {
      throw dump_error(fmt::format("{}: cu_seqlens[0] = {}, must be 0", where("cu_seqlens"), v[0]));
    }
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (v[i] == v[i - 1]) {
        throw dump_error(
            fmt::format("{}: sequence {} has zero length (cu_seqlens[{}] = cu_seqlens[{}] = {})",
                        where("cu_seqlens"), i - 1, i - 1, i, v[i]));
      }
      if (v[i] < v[i - 1]) {
        throw dump_error(
            fmt::format("{}: not increasing: cu_seqlens[{}] = {} < cu_seqlens[{}] = {}",
                        where("cu_seqlens"), i, v[i], i - 1, v[i - 1]));
      }
    }
    if (v.back() > std::numeric_limits<std::int32_t>::max()) {
      throw dump_error(
          fmt::format("{}: {} tokens do not fit int32", where("cu_seqlens"), v.back()));
    }
    return std::vector<std::int32_t>(v.begin(), v.end());
  }

private:
  void check_dtype(std::string_view name, const npy_array& a, std::string_view want,
                   std::string_view want_name) const {
    if (a.dtype != want) {
      throw dump_error(fmt::format("{}: dtype {} ({}), expected {} ({})", where(name), a.dtype,
                                   npy_dtype_name(a.dtype), want, want_name));
    }
  }

  [[noreturn]] void fail_non_finite(std::string_view name, const std::vector<std::int64_t>& shape,
                                    std::size_t i, float value) const {
    throw dump_error(fmt::format("{}: element {} (flat index {}) is {}; inputs must be finite",
                                 where(name), index_text(shape, static_cast<std::int64_t>(i)), i,
                                 value));
  }

  fs::path m_dir;
};

} // namespace

loaded_inputs load_dump_inputs(const std::filesystem::path& dir, const load_options& options) {
  if (!fs::is_directory(dir)) {
    throw dump_error(fmt::format("{}: no such dump directory", dir.string()));
  }
  loaded_inputs out;
  host_inputs& in = out.inputs;
  const input_reader r(dir);

  if (!fs::exists(dir / k_manifest_file) && !r.has("cu_seqlens")) {
    // A folder of dumps (kda-bench --dump with several rows or decays writes one sub-folder per
    // row and decay): name them rather than report a missing cu_seqlens.npy.
    std::vector<std::string> subs;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename() == k_manifest_file) {
        subs.push_back(fs::relative(e.path().parent_path(), dir).generic_string());
      }
    }
    std::sort(subs.begin(), subs.end());
    if (!subs.empty()) {
      throw dump_error(fmt::format("{}: holds several dumps, one per row and decay ({}): pass one of them, e.g. {}",
                                   dir.string(), fmt::join(subs, ", "), (dir / subs.front()).string()));
    }
  }
  if (fs::exists(dir / k_manifest_file)) {
    out.manifest = read_manifest(dir / k_manifest_file);
    in.gate = out.manifest->info.gate;
    in.l2n = out.manifest->info.l2n;
  } else if (r.has("g") && r.has("x")) {
    throw dump_error(fmt::format(
        "{}: both g.npy and x.npy exist and there is no manifest.json to say which gate form "
        "this is; remove one",
        dir.string()));
  } else {
    in.gate = r.has("x") ? gate_form::raw : gate_form::g;
  }

  problem_dims& d = in.dims;
  d.cu_seqlens = r.load_cu_seqlens();
  const std::int64_t T = d.tokens();

  // q fixes H and K; everything else must agree with it.
  const npy_array q = r.read("q");
  if (q.shape.size() != 3 || q.shape[0] != T || q.shape[1] < 1 || q.shape[2] < 1) {
    throw dump_error(fmt::format("{}: shape {}, expected [T, H, K] with T = {} (cu_seqlens[-1])",
                                 r.where("q"), shape_repr(q.shape), T));
  }
  const std::int64_t H = q.shape[1], K = q.shape[2];
  const npy_array v = r.read("v");
  if (v.shape.size() != 3 || v.shape[0] != T || v.shape[1] != H || v.shape[2] < 1) {
    throw dump_error(fmt::format("{}: shape {}, expected [T, H, V] with T = {}, H = {} (from q)",
                                 r.where("v"), shape_repr(v.shape), T, H));
  }
  const std::int64_t V = v.shape[2];
  if (options.require_equal_kv && K != V) {
    throw dump_error(fmt::format("{}: K = {} (q.npy) differs from V = {} (v.npy); KDA needs K = V",
                                 dir.string(), K, V));
  }
  d.heads = static_cast<int>(H);
  d.k_dim = static_cast<int>(K);
  d.v_dim = static_cast<int>(V);

  in.q = r.load_bf16("q", {T, H, K}, "[T, H, K]");
  in.k = r.load_bf16("k", {T, H, K}, "[T, H, K] (as q)");
  in.v = r.load_bf16("v", {T, H, V}, "[T, H, V]");
  in.beta = r.load_bf16("beta", {T, H}, "[T, H]");
  in.d_o = r.load_bf16("do", {T, H, V}, "[T, H, V] (as v)");
  in.gate_input = r.load_f32(in.gate == gate_form::g ? "g" : "x", {T, H, K}, "[T, H, K]");

  // The raw form needs A_log and dt_bias; the g form carries them only as a record.
  if (in.gate == gate_form::raw || r.has("A_log")) {
    in.A_log = r.load_f32("A_log", {H}, "[H]");
  }
  if (in.gate == gate_form::raw || r.has("dt_bias")) {
    const npy_array dt = r.read("dt_bias");
    const bool flat = dt.shape.size() == 1; // [H * K], the kernels' spelling, is accepted too
    in.dt_bias = r.load_f32(
        "dt_bias", flat ? std::vector<std::int64_t>{H * K} : std::vector<std::int64_t>{H, K},
        flat ? "[H * K]" : "[H, K]");
  }
  return out;
}

} // namespace kda::io
