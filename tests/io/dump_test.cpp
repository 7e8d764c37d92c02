// Dump directories: writing a row's inputs and outputs, the manifest, refusing to overwrite, and
// loading the inputs back bit for bit.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dump_fixture.hpp"
#include "io/npy.hpp"

namespace kda::io {
namespace {

using kda::test::expect_error;
using shape_t = std::vector<std::int64_t>;

class io_dump : public kda::test::dump_test {};

void expect_same_inputs(const host_inputs& a, const host_inputs& b) {
  EXPECT_EQ(a.dims.cu_seqlens, b.dims.cu_seqlens);
  EXPECT_EQ(a.dims.heads, b.dims.heads);
  EXPECT_EQ(a.dims.k_dim, b.dims.k_dim);
  EXPECT_EQ(a.dims.v_dim, b.dims.v_dim);
  EXPECT_EQ(a.gate, b.gate);
  EXPECT_EQ(a.l2n, b.l2n);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.v, b.v);
  EXPECT_EQ(a.beta, b.beta);
  EXPECT_EQ(a.gate_input, b.gate_input);
  EXPECT_EQ(a.A_log, b.A_log);
  EXPECT_EQ(a.dt_bias, b.dt_bias);
  EXPECT_EQ(a.d_o, b.d_o);
}

TEST_F(io_dump, round_trip_g_and_raw_forms) {
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    for (const l2n_mode l2n : {l2n_mode::off, l2n_mode::fused}) {
      const auto d = dir() / (std::string(to_string(gate)) + std::string(to_string(l2n)));
      const host_inputs in = make_inputs(gate, l2n);
      dump_writer(d, info_for(gate, l2n), false).write_inputs(in);

      const loaded_inputs back = load_dump_inputs(d);
      expect_same_inputs(in, back.inputs);
      ASSERT_TRUE(back.manifest.has_value());
      EXPECT_EQ(back.manifest->info.row, "tiny:" + std::string(to_string(gate)) + ":" +
                                             std::string(to_string(l2n)) + ":saved");
      EXPECT_EQ(back.manifest->info.scenario, "tiny");
      EXPECT_EQ(back.manifest->info.seed, 1234u);
      EXPECT_EQ(back.manifest->info.decay, decay_regime::fast);
    }
  }
}

TEST_F(io_dump, files_hold_float32_bf16_values_and_int32_cu_seqlens) {
  const host_inputs in = make_inputs(gate_form::raw);
  const auto d = dump_row(gate_form::raw);
  const auto q = read_npy_as<float>(d / "q.npy");
  EXPECT_EQ(q.shape, (shape_t{12, 2, 8}));
  for (std::size_t i = 0; i < q.values.size(); ++i) ASSERT_EQ(q.values[i], bf16_to_float(in.q[i]));
  EXPECT_EQ(read_npy_as<std::int32_t>(d / "cu_seqlens.npy").values,
            (std::vector<std::int32_t>{0, 5, 12}));
  EXPECT_EQ(read_npy_as<float>(d / "x.npy").values, in.gate_input);
  EXPECT_EQ(read_npy_as<float>(d / "dt_bias.npy").shape, (shape_t{2, 8}));
  EXPECT_EQ(read_npy_as<float>(d / "beta.npy").shape, (shape_t{12, 2}));
  EXPECT_FALSE(std::filesystem::exists(d / "g.npy"));
}

TEST_F(io_dump, manifest_lists_every_file) {
  const auto d = dir() / "dump";
  dump_writer w(d, info_for(gate_form::g, l2n_mode::off), false);
  w.write_inputs(make_inputs(gate_form::g));
  const std::vector<float> o(12 * 2 * 8, 0.25f);
  w.write_output("o", o, {12, 2, 8});
  const std::vector<double> ref_o(12 * 1 * 8, 0.5);
  w.write_reference("o", ref_o, {12, 1, 8});
  const int heads[] = {1};
  w.write_reference_heads(heads);

  std::ifstream in(d / "manifest.json");
  const auto j = nlohmann::ordered_json::parse(in);
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["row"], "tiny:g:off:saved");
  EXPECT_EQ(j["gate"], "g");
  EXPECT_EQ(j["l2n"], "off");
  EXPECT_EQ(j["decay"], "fast");
  EXPECT_EQ(j["seed"], 1234);
  EXPECT_EQ(j["dims"]["tokens"], 12);

  const dump_manifest m = j.get<dump_manifest>();
  std::vector<std::string> names;
  for (const auto& f : m.files) {
    names.push_back(f.name);
    EXPECT_TRUE(std::filesystem::exists(d / f.file)) << f.file;
    const npy_array a = read_npy(d / f.file);
    EXPECT_EQ(a.dtype, f.dtype) << f.name;
    EXPECT_EQ(a.shape, f.shape) << f.name;
    EXPECT_FALSE(f.description.empty()) << f.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cu_seqlens", "q", "k", "v", "beta", "g", "A_log",
                                             "dt_bias", "do", "o", "ref_o", "ref_heads"}));
  EXPECT_TRUE(m.find("q")->bf16_values);
  EXPECT_FALSE(m.find("g")->bf16_values);
  EXPECT_EQ(m.find("o")->role, dump_role::output);
  EXPECT_EQ(m.find("ref_o")->dtype, "<f8");
  EXPECT_EQ(m.find("ref_o")->role, dump_role::reference);
  EXPECT_EQ(m.find("ref_heads")->dtype, "<i4");
  EXPECT_EQ(read_npy_as<std::int32_t>(d / "ref_heads.npy").values, std::vector<std::int32_t>{1});
  EXPECT_EQ(read_npy_as<double>(d / "ref_o.npy").values, ref_o);
}

TEST_F(io_dump, refuses_a_non_empty_directory_unless_forced) {
  const auto d = dump_row(gate_form::raw);
  expect_error<dump_error>([&] { dump_writer(d, info_for(gate_form::g, l2n_mode::off), false); },
                           {d.string(), "not empty", "--force"});
  // Forced: the old dump's files go (x.npy would confuse a loader of the new g-form dump), a file
  // kda-bench did not write stays.
  { std::ofstream(d / "notes.txt") << "mine"; }
  dump_writer w(d, info_for(gate_form::g, l2n_mode::off), true);
  w.write_inputs(make_inputs(gate_form::g));
  EXPECT_FALSE(std::filesystem::exists(d / "x.npy"));
  EXPECT_TRUE(std::filesystem::exists(d / "notes.txt"));
  EXPECT_EQ(load_dump_inputs(d).inputs.gate, gate_form::g);
}

TEST_F(io_dump, never_writes_a_name_twice_or_a_bad_name) {
  const auto d = dir() / "dump";
  dump_writer w(d, info_for(gate_form::g, l2n_mode::off), false);
  const std::vector<float> x(4, 1.0f);
  w.write_output("dq", x, {4});
  expect_error<dump_error>([&] { w.write_output("dq", x, {4}); }, {"'dq'", "already written"});
  expect_error<dump_error>([&] { w.write_output("../evil", x, {4}); }, {"'../evil'"});
  expect_error<dump_error>([&] { w.write_output("q", x, {4}); }, {"'q'", "reserved"});
  expect_error<dump_error>([&] { w.write_output("ref_o", x, {4}); }, {"'ref_o'", "reserved"});
  expect_error<dump_error>([&] { w.write_output("o", x, {2, 3}); }, {"'o'", "4 elements", "6"});
  expect_error<dump_error>([&] { w.write_inputs(make_inputs(gate_form::raw)); },
                           {"raw:off", "tiny:g:off:saved"});
}

TEST_F(io_dump, loads_a_directory_without_manifest) {
  // As a user would prepare it with numpy: no manifest, int64 cu_seqlens, bf16 tensors as uint16
  // bits, dt_bias flat [H * K].
  const host_inputs in = make_inputs(gate_form::raw);
  const auto d = dump_row(gate_form::raw);
  std::filesystem::remove(d / "manifest.json");
  const std::vector<std::int64_t> cu(in.dims.cu_seqlens.begin(), in.dims.cu_seqlens.end());
  write_npy(d / "cu_seqlens.npy", cu.data(), {3});
  write_npy(d / "k.npy", in.k.data(), {12, 2, 8});
  write_npy(d / "dt_bias.npy", in.dt_bias.data(), {16});

  const loaded_inputs back = load_dump_inputs(d);
  EXPECT_FALSE(back.manifest.has_value());
  expect_same_inputs(in, back.inputs); // gate form from x.npy; l2n off as generated
}

TEST_F(io_dump, a_folder_of_dumps_names_its_sub_folders) {
  // kda-bench --dump with several decays writes DIR/normal and DIR/fast; --inputs DIR must say so.
  dump_row(gate_form::g, "run/fast");
  dump_row(gate_form::g, "run/normal");
  expect_error<dump_error>([&] { load_dump_inputs(dir() / "run"); },
                           {"holds several dumps", "fast, normal", "pass one of them", "run/fast"});
}

TEST_F(io_dump, g_form_without_A_log_and_dt_bias) {
  const auto d = dump_row(gate_form::g);
  std::filesystem::remove(d / "A_log.npy");
  std::filesystem::remove(d / "dt_bias.npy");
  const loaded_inputs back = load_dump_inputs(d);
  EXPECT_TRUE(back.inputs.A_log.empty());
  EXPECT_TRUE(back.inputs.dt_bias.empty());
  EXPECT_EQ(back.inputs.gate_input, make_inputs(gate_form::g).gate_input);
}

} // namespace
} // namespace kda::io
