// Scenario files: parsing and validation (every error names the file and the field), the catalogue
// (stable order, duplicates across files), and the shipped scenarios/ folder with the seed rows'
// shapes.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog_fixture.hpp"
#include "core/scenario.hpp"
#include "support/temp_dir.hpp"

namespace kda {
namespace {

using kda::test::expect_error;
using lens = std::vector<std::int64_t>;

void expect_scenario_error(const std::string& json, std::initializer_list<std::string_view> parts) {
  SCOPED_TRACE(json);
  expect_error<scenario_error>([&] { parse_scenario_json(json, "dir/bad.json"); }, parts);
  // Every message names the file.
  expect_error<scenario_error>([&] { parse_scenario_json(json, "dir/bad.json"); }, {"dir/bad.json"});
}

TEST(core_scenario, minimal_file) {
  const scenario s = parse_scenario_json(R"({"name": "tiny", "seq_lens": [3, 5], "heads": 2})", "t.json");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.seq_lens, (lens{3, 5}));
  EXPECT_EQ(s.heads, 2);
  EXPECT_EQ(s.k_dim, 128);
  EXPECT_EQ(s.v_dim, 128);
  EXPECT_EQ(s.source, "t.json");
  EXPECT_EQ(s.total_tokens(), 8);
  EXPECT_EQ(s.cu_seqlens(), (std::vector<std::int32_t>{0, 3, 8}));
}

TEST(core_scenario, every_optional_field) {
  const scenario s = parse_scenario_json(R"({"name": "full", "description": "all fields", "comment": "x",
      "seq_lens": [1], "heads": 1, "k_dim": 64, "v_dim": 32})",
                                         "f.json");
  EXPECT_EQ(s.description, "all fields");
  EXPECT_EQ(s.seq_lens, (lens{1}));
  EXPECT_EQ(s.heads, 1);
  EXPECT_EQ(s.k_dim, 64);
  EXPECT_EQ(s.v_dim, 32);
}

TEST(core_scenario, lengths_must_be_integers_of_at_least_one) {
  expect_scenario_error(R"({"name": "a", "seq_lens": [3, 0], "heads": 2})", {"seq_lens[1]", ">= 1", "got 0"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [-4], "heads": 2})", {"seq_lens[0]", "got -4"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [1.5], "heads": 2})", {"seq_lens[0]", "integer", "1.5"});
  expect_scenario_error(R"({"name": "a", "seq_lens": ["3"], "heads": 2})", {"seq_lens[0]", "integer"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [], "heads": 2})", {"seq_lens", "non-empty array"});
  expect_scenario_error(R"({"name": "a", "seq_lens": 16, "heads": 2})", {"seq_lens", "non-empty array"});
  expect_scenario_error(R"({"name": "a", "heads": 2})", {"seq_lens"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [2147483647, 1], "heads": 2})", {"total tokens", "int32"});
}

TEST(core_scenario, heads_and_head_sizes_must_be_integers_of_at_least_one) {
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 0})", {"'heads'", ">= 1", "got 0"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": -2})", {"'heads'", "got -2"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 2.5})", {"'heads'", "2.5"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": "4"})", {"'heads'", "integer"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 4294967296})", {"'heads'"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3]})", {"'heads' is required"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 1, "k_dim": 0})", {"'k_dim'", ">= 1"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 1, "v_dim": 1.0})", {"'v_dim'", "integer"});
}

TEST(core_scenario, name_is_required_and_may_not_hold_key_syntax) {
  expect_scenario_error(R"({"seq_lens": [3], "heads": 1})", {"'name'", "non-empty string"});
  expect_scenario_error(R"({"name": "", "seq_lens": [3], "heads": 1})", {"'name'", "non-empty string"});
  expect_scenario_error(R"({"name": 7, "seq_lens": [3], "heads": 1})", {"'name'", "string"});
  // The names as spelt in JSON: a\\tb holds a tab.
  for (const char* bad : {"a:b", "a,b", "a*", "a b", "a\\tb", "all"}) {
    const std::string json = std::string(R"({"name": ")") + bad + R"(", "seq_lens": [3], "heads": 1})";
    expect_scenario_error(json, {"'name' may not be 'all' or contain"});
  }
}

TEST(core_scenario, unknown_or_misspelt_fields_are_errors) {
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "hedas": 1})",
                        {"unknown field 'hedas'", "valid fields: name, description, seq_lens, heads, k_dim, v_dim, comment"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 1, "extra": true})", {"unknown field 'extra'"});
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], "heads": 1, "description": 5})",
                        {"'description' must be a string"});
}

TEST(core_scenario, must_be_a_json_object) {
  expect_scenario_error(R"({"name": "a", "seq_lens": [3], )", {"not valid JSON"});
  expect_scenario_error("", {"not valid JSON"});
  expect_scenario_error("[1, 2]", {"must be a JSON object"});
  expect_scenario_error(R"("1doc")", {"must be a JSON object"});
}

class core_scenario_files : public kda::test::temp_dir_test {
protected:
  std::filesystem::path write(const std::string& file, const std::string& name, const std::string& lens = "[3]") {
    const auto p = dir() / file;
    write_bytes(p, R"({"name": ")" + name + R"(", "seq_lens": )" + lens + R"(, "heads": 1})");
    return p;
  }
};

TEST_F(core_scenario_files, load_file_names_its_source) {
  const auto p = write("x.json", "x", "[7, 9]");
  const scenario s = load_scenario_file(p);
  EXPECT_EQ(s.name, "x");
  EXPECT_EQ(s.seq_lens, (lens{7, 9}));
  EXPECT_EQ(s.source, p.string());

  write_bytes(dir() / "bad.json", R"({"name": "b", "seq_lens": [0], "heads": 1})");
  expect_error<scenario_error>([&] { load_scenario_file(dir() / "bad.json"); },
                               {(dir() / "bad.json").string(), "seq_lens[0]"});
  expect_error<scenario_error>([&] { load_scenario_file(dir() / "absent.json"); },
                               {(dir() / "absent.json").string(), "cannot open"});
}

TEST_F(core_scenario_files, duplicate_names_across_files_name_both_files) {
  write("a.json", "same");
  write("b.json", "same");
  scenario_catalog c;
  expect_error<scenario_error>([&] { c.add_directory(dir()); },
                               {"duplicate name 'same'", (dir() / "a.json").string(), (dir() / "b.json").string()});
}

TEST_F(core_scenario_files, duplicate_of_the_shipped_folder) {
  const auto extra = write("m2_copy.json", "m2");
  scenario_catalog c = kda::test::shipped_catalog();
  expect_error<scenario_error>([&] { c.add(load_scenario_file(extra)); },
                               {"duplicate name 'm2'", extra.string(), "m2.json"});
}

TEST_F(core_scenario_files, directory_reads_only_json_files_in_catalogue_order) {
  write("z.json", "zz");
  write("m.json", "m2");
  write("a.json", "beta");
  write_bytes(dir() / "notes.txt", "not a scenario");
  write_bytes(dir() / "backup.json.bak", "{");
  scenario_catalog c;
  c.add_directory(dir());
  EXPECT_EQ(c.names(), (std::vector<std::string>{"m2", "beta", "zz"}));
  ASSERT_NE(c.find("beta"), nullptr);
  EXPECT_EQ(c.find("beta")->source, (dir() / "a.json").string());
  EXPECT_EQ(c.find("nope"), nullptr);
}

TEST_F(core_scenario_files, an_invalid_file_fails_the_directory) {
  write("good.json", "good");
  write_bytes(dir() / "broken.json", "{ not json");
  scenario_catalog c;
  expect_error<scenario_error>([&] { c.add_directory(dir()); }, {"broken.json", "not valid JSON"});
}

TEST_F(core_scenario_files, missing_directory) {
  scenario_catalog c;
  expect_error<scenario_error>([&] { c.add_directory(dir() / "absent"); }, {"absent", "does not exist"});
}

TEST(core_scenario_catalog, seed_rows_first_then_by_name) {
  const scenario_catalog c = kda::test::catalog_of({"b", "m2", "a", "R2", "4doc", "1doc", "Z"});
  EXPECT_EQ(c.names(), (std::vector<std::string>{"1doc", "4doc", "R2", "m2", "Z", "a", "b"}));
  ASSERT_EQ(c.all().size(), 7u);
}

TEST(core_scenario_catalog, add_refuses_a_duplicate) {
  scenario_catalog c = kda::test::catalog_of({"one"});
  scenario s;
  s.name = "one";
  s.seq_lens = {1};
  s.heads = 1;
  s.source = "second.json";
  expect_error<scenario_error>([&] { c.add(s); }, {"duplicate name 'one'", "second.json", "test:one"});
  EXPECT_EQ(c.all().size(), 1u);
}

TEST(core_scenario_shipped, folder_loads_with_the_seed_rows_first) {
  const scenario_catalog c = kda::test::shipped_catalog();
  const auto names = c.names();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4),
            (std::vector<std::string>{"1doc", "4doc", "R2", "m2"}));
  for (const auto& s : c.all()) {
    SCOPED_TRACE(s.name);
    EXPECT_FALSE(s.description.empty());
    EXPECT_EQ(s.k_dim, 128);
    EXPECT_EQ(s.v_dim, 128);
  }
}

TEST(core_scenario_shipped, seed_row_shapes) {
  const scenario_catalog c = kda::test::shipped_catalog();
  const scenario* one = c.find("1doc");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->seq_lens, (lens{16384}));
  EXPECT_EQ(one->heads, 64);

  const scenario* four = c.find("4doc");
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(four->seq_lens, (lens{8192, 4096, 3072, 1024}));
  EXPECT_EQ(four->heads, 64);

  const scenario* r2 = c.find("R2");
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(r2->total_tokens(), 16384);
  ASSERT_EQ(r2->seq_lens.size(), 3u);
  EXPECT_NE(r2->seq_lens[0], r2->seq_lens[1]);
  EXPECT_NE(r2->seq_lens[1], r2->seq_lens[2]);
  EXPECT_NE(r2->seq_lens[0], r2->seq_lens[2]);
  for (auto l : r2->seq_lens) EXPECT_NE(l % 64, 0) << l;
  EXPECT_EQ(r2->heads, 4);

  const scenario* m2 = c.find("m2");
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(m2->seq_lens, (lens{2048, 1500}));
  EXPECT_EQ(m2->heads, 4);
  EXPECT_EQ(m2->cu_seqlens(), (std::vector<std::int32_t>{0, 2048, 3548}));
}

TEST(core_scenario_shipped, default_dir_honours_the_environment) {
  const char* old = std::getenv("KDA_SCENARIOS");
  const std::string saved = old ? old : "";
  ::setenv("KDA_SCENARIOS", "/some/where", 1);
  EXPECT_EQ(default_scenario_dir(), std::filesystem::path("/some/where"));
  ::unsetenv("KDA_SCENARIOS");
  EXPECT_TRUE(std::filesystem::exists(default_scenario_dir() / "m2.json")) << default_scenario_dir();
  if (old) ::setenv("KDA_SCENARIOS", saved.c_str(), 1);
}

} // namespace
} // namespace kda
