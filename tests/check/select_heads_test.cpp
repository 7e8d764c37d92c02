// --check-heads parsing (select_heads): all heads, an evenly spaced count, or a list (sorted,
// de-duplicated); bad entries are std::invalid_argument naming the entry.
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "check/row_check.hpp"
#include "support/temp_dir.hpp"

namespace kda {
namespace {

using kda::test::expect_error;
using heads = std::vector<int>;

TEST(check_select_heads, empty_or_all_is_every_head) {
  heads all64(64);
  for (int h = 0; h < 64; ++h) all64[h] = h;
  EXPECT_EQ(select_heads("", 64), all64);
  EXPECT_EQ(select_heads("all", 64), all64);
  EXPECT_EQ(select_heads("", 4), (heads{0, 1, 2, 3}));
}

TEST(check_select_heads, count_is_evenly_spaced_from_head_zero) {
  EXPECT_EQ(select_heads("4", 64), (heads{0, 16, 32, 48}));
  EXPECT_EQ(select_heads("3", 64), (heads{0, 21, 42}));
  EXPECT_EQ(select_heads("2", 4), (heads{0, 2}));
  EXPECT_EQ(select_heads("1", 64), (heads{0}));
  EXPECT_EQ(select_heads("4", 4), (heads{0, 1, 2, 3}));
  EXPECT_EQ(select_heads("100", 4), (heads{0, 1, 2, 3})) << "a count above the head count means all";
}

TEST(check_select_heads, list_is_sorted_and_de_duplicated) {
  EXPECT_EQ(select_heads("0,17,42", 64), (heads{0, 17, 42}));
  EXPECT_EQ(select_heads("42,0,17", 64), (heads{0, 17, 42}));
  EXPECT_EQ(select_heads("3,3,1,3", 4), (heads{1, 3}));
  EXPECT_EQ(select_heads("63,0", 64), (heads{0, 63}));
}

TEST(check_select_heads, list_hint_makes_one_number_a_head) {
  EXPECT_EQ(select_heads("5", 64, true), (heads{5}));
  EXPECT_EQ(select_heads("0", 4, true), (heads{0}));
}

TEST(check_select_heads, out_of_range_heads) {
  expect_error<std::invalid_argument>([] { select_heads("0,64", 64); },
                                      {"--check-heads", "head 64 out of range", "64 heads"});
  expect_error<std::invalid_argument>([] { select_heads("4", 4, true); }, {"head 4 out of range"});
}

TEST(check_select_heads, garbage_is_rejected_naming_the_entry) {
  for (const char* bad : {"abc", "1x", "-1", "1,,2", "1,", ",1", "2.5", "0,-3", "99999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(select_heads(bad, 64), std::invalid_argument);
  }
  expect_error<std::invalid_argument>([] { select_heads("0,x7", 64); }, {"--check-heads", "'x7'"});
  expect_error<std::invalid_argument>([] { select_heads("four", 64); }, {"'four'", "head index or count"});
}

} // namespace
} // namespace kda
