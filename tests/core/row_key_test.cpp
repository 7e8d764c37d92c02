// Row keys rows:gate:l2n:path: exact keys, patterns (`*`, `all`, comma lists), the stable
// expansion order, de-duplication, and error messages that name the bad field and the valid values.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog_fixture.hpp"
#include "core/row_key.hpp"
#include "support/temp_dir.hpp"

namespace kda {
namespace {

using kda::test::expect_error;

std::vector<std::string> strs(const std::vector<row_key>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) out.push_back(k.str());
  return out;
}

class core_row_key : public ::testing::Test {
protected:
  // Added out of order on purpose: the catalogue sorts seed rows first, then the others by name.
  const scenario_catalog m_catalog = kda::test::catalog_of({"zeta", "m2", "alpha", "4doc", "R2", "1doc"});

  std::vector<std::string> expand(const char* patterns) const {
    return strs(expand_row_keys(patterns, m_catalog));
  }
};

TEST_F(core_row_key, exact_key_parses_every_field) {
  const row_key k = parse_row_key("4doc:raw:fused:replay", m_catalog);
  EXPECT_EQ(k.rows, "4doc");
  EXPECT_EQ(k.gate, gate_form::raw);
  EXPECT_EQ(k.l2n, l2n_mode::fused);
  EXPECT_EQ(k.path, bwd_path::replay);
  EXPECT_EQ(k.str(), "4doc:raw:fused:replay");

  const row_key m = parse_row_key("m2:g:off:saved", m_catalog);
  EXPECT_EQ(m, (row_key{"m2", gate_form::g, l2n_mode::off, bwd_path::saved}));
  EXPECT_EQ(m.str(), "m2:g:off:saved");
}

TEST_F(core_row_key, exact_key_expands_to_itself) {
  EXPECT_EQ(expand("R2:raw:off:replay"), (std::vector<std::string>{"R2:raw:off:replay"}));
}

TEST_F(core_row_key, parse_row_key_refuses_patterns) {
  EXPECT_THROW(parse_row_key("4doc:*:off:saved", m_catalog), row_key_error);
  EXPECT_THROW(parse_row_key("all", m_catalog), row_key_error);
  EXPECT_THROW(parse_row_key("m2:g:off:saved,R2:g:off:saved", m_catalog), row_key_error);
}

TEST_F(core_row_key, catalogue_order_is_seed_rows_then_by_name) {
  EXPECT_EQ(m_catalog.names(), (std::vector<std::string>{"1doc", "4doc", "R2", "m2", "alpha", "zeta"}));
}

TEST_F(core_row_key, four_doc_off_pattern_gives_four_keys_in_documented_order) {
  EXPECT_EQ(expand("4doc:*:off:*"), (std::vector<std::string>{"4doc:g:off:saved", "4doc:g:off:replay",
                                                              "4doc:raw:off:saved", "4doc:raw:off:replay"}));
}

TEST_F(core_row_key, star_in_each_field) {
  EXPECT_EQ(expand("*:raw:fused:replay"),
            (std::vector<std::string>{"1doc:raw:fused:replay", "4doc:raw:fused:replay", "R2:raw:fused:replay",
                                      "m2:raw:fused:replay", "alpha:raw:fused:replay", "zeta:raw:fused:replay"}));
  EXPECT_EQ(expand("m2:*:off:saved"), (std::vector<std::string>{"m2:g:off:saved", "m2:raw:off:saved"}));
  EXPECT_EQ(expand("m2:g:*:saved"), (std::vector<std::string>{"m2:g:off:saved", "m2:g:fused:saved"}));
  EXPECT_EQ(expand("m2:g:off:*"), (std::vector<std::string>{"m2:g:off:saved", "m2:g:off:replay"}));
}

TEST_F(core_row_key, all_is_every_key_in_stable_order) {
  const auto all = expand_row_keys("all", m_catalog);
  ASSERT_EQ(all.size(), m_catalog.all().size() * 8);
  EXPECT_EQ(strs(all), strs(expand_row_keys("*:*:*:*", m_catalog)));
  // The first scenario's block, in the documented order: g < raw, off < fused, saved < replay.
  const auto words = strs(all);
  const std::vector<std::string> first8(words.begin(), words.begin() + 8);
  EXPECT_EQ(first8, (std::vector<std::string>{"1doc:g:off:saved", "1doc:g:off:replay", "1doc:g:fused:saved",
                                              "1doc:g:fused:replay", "1doc:raw:off:saved", "1doc:raw:off:replay",
                                              "1doc:raw:fused:saved", "1doc:raw:fused:replay"}));
  // Scenario blocks follow the catalogue order.
  const auto names = m_catalog.names();
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].rows, names[i / 8]) << i;
}

TEST_F(core_row_key, comma_list_keeps_pattern_order) {
  EXPECT_EQ(expand("zeta:g:off:saved,1doc:raw:fused:replay,m2:*:off:saved"),
            (std::vector<std::string>{"zeta:g:off:saved", "1doc:raw:fused:replay", "m2:g:off:saved",
                                      "m2:raw:off:saved"}));
}

TEST_F(core_row_key, duplicates_keep_their_first_place) {
  EXPECT_EQ(expand("m2:raw:off:saved,m2:*:off:saved"),
            (std::vector<std::string>{"m2:raw:off:saved", "m2:g:off:saved"}));
  EXPECT_EQ(expand("m2:g:off:saved,m2:g:off:saved"), (std::vector<std::string>{"m2:g:off:saved"}));
  EXPECT_EQ(expand("all,m2:g:off:saved,all"), expand("all"));
  EXPECT_EQ(expand("4doc:*:off:*,4doc:g:*:saved"),
            (std::vector<std::string>{"4doc:g:off:saved", "4doc:g:off:replay", "4doc:raw:off:saved",
                                      "4doc:raw:off:replay", "4doc:g:fused:saved"}));
}

TEST_F(core_row_key, malformed_keys) {
  for (const char* bad : {"4doc:raw:off", "4doc:raw:off:saved:x", "4doc::off:saved", ":raw:off:saved",
                          "4doc:raw:off:", "4doc", "m2:g:off:saved,", ",m2:g:off:saved", "m2:g:off:saved,,all"}) {
    SCOPED_TRACE(bad);
    expect_error<row_key_error>([&] { expand_row_keys(bad, m_catalog); },
                                {"malformed", "4 non-empty fields", "rows:gate:l2n:path"});
  }
  expect_error<row_key_error>([&] { expand_row_keys("4doc:raw:off", m_catalog); }, {"'4doc:raw:off'"});
  EXPECT_THROW(expand_row_keys("", m_catalog), row_key_error);
}

TEST_F(core_row_key, unknown_gate) {
  expect_error<row_key_error>([&] { expand_row_keys("4doc:gg:off:saved", m_catalog); },
                              {"4doc:gg:off:saved", "gate", "'gg'", "g, raw"});
}

TEST_F(core_row_key, unknown_l2n) {
  expect_error<row_key_error>([&] { expand_row_keys("4doc:raw:of:saved", m_catalog); },
                              {"4doc:raw:of:saved", "l2n", "'of'", "off, fused"});
}

TEST_F(core_row_key, unknown_path) {
  expect_error<row_key_error>([&] { expand_row_keys("4doc:raw:off:save", m_catalog); },
                              {"path", "'save'", "saved, replay"});
}

TEST_F(core_row_key, unknown_scenario_lists_the_catalogue) {
  expect_error<row_key_error>([&] { expand_row_keys("5doc:raw:off:saved", m_catalog); },
                              {"rows", "'5doc'", "1doc, 4doc, R2, m2, alpha, zeta"});
}

TEST_F(core_row_key, error_names_the_bad_pattern_of_a_list) {
  expect_error<row_key_error>([&] { expand_row_keys("m2:g:off:saved,m2:g:fussed:saved", m_catalog); },
                              {"'m2:g:fussed:saved'", "l2n", "'fussed'"});
}

TEST_F(core_row_key, words_are_case_sensitive) {
  EXPECT_THROW(expand_row_keys("4DOC:raw:off:saved", m_catalog), row_key_error);
  EXPECT_THROW(expand_row_keys("4doc:RAW:off:saved", m_catalog), row_key_error);
  EXPECT_THROW(expand_row_keys("ALL", m_catalog), row_key_error);
}

TEST(core_row_key_shipped, seed_rows_come_first) {
  const scenario_catalog c = kda::test::shipped_catalog();
  const auto keys = expand_row_keys("*:g:off:saved", c);
  ASSERT_GE(keys.size(), 4u);
  EXPECT_EQ(keys[0].str(), "1doc:g:off:saved");
  EXPECT_EQ(keys[1].str(), "4doc:g:off:saved");
  EXPECT_EQ(keys[2].str(), "R2:g:off:saved");
  EXPECT_EQ(keys[3].str(), "m2:g:off:saved");
}

} // namespace
} // namespace kda
