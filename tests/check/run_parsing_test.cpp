// The main job's --ops and --decay lists: order kept, duplicates dropped, the decay default
// depending on --check, and errors naming the option, the bad word and the valid ones.
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "cli/run_parsing.hpp"
#include "support/temp_dir.hpp"

namespace kda::cli {
namespace {

using kda::test::expect_error;
using ops = std::vector<op_kind>;
using decays = std::vector<decay_regime>;

TEST(cli_run_parsing, ops_lists) {
  EXPECT_EQ(parse_ops("fwd"), (ops{op_kind::fwd}));
  EXPECT_EQ(parse_ops("bwd,fwd+bwd"), (ops{op_kind::bwd, op_kind::fwd_bwd}));
  EXPECT_EQ(parse_ops("fwd+bwd,fwd"), (ops{op_kind::fwd_bwd, op_kind::fwd}));
  EXPECT_EQ(parse_ops("bwd,fwd,bwd,fwd"), (ops{op_kind::bwd, op_kind::fwd}));
}

TEST(cli_run_parsing, ops_errors_name_the_valid_words) {
  for (const char* bad : {"fwdx", "", "fwd,", ",fwd", "fwd bwd", "FWD", "fwd+bwd+"}) {
    SCOPED_TRACE(bad);
    expect_error<std::invalid_argument>([&] { parse_ops(bad); }, {"--ops", "unknown value", "fwd, bwd, fwd+bwd"});
  }
  expect_error<std::invalid_argument>([] { parse_ops("fwd,back"); }, {"'back'"});
}

TEST(cli_run_parsing, decay_defaults_depend_on_checking) {
  EXPECT_EQ(parse_decays("", false), (decays{decay_regime::normal}));
  EXPECT_EQ(parse_decays("", true), (decays{decay_regime::normal, decay_regime::fast}));
}

TEST(cli_run_parsing, decay_lists) {
  EXPECT_EQ(parse_decays("fast", false), (decays{decay_regime::fast}));
  EXPECT_EQ(parse_decays("fast", true), (decays{decay_regime::fast}));
  EXPECT_EQ(parse_decays("fast,normal", false), (decays{decay_regime::fast, decay_regime::normal}));
  EXPECT_EQ(parse_decays("normal,normal", true), (decays{decay_regime::normal}));
}

TEST(cli_run_parsing, decay_errors_name_the_valid_words) {
  for (const char* bad : {"slow", "normal,", "Normal", "normal,fats"}) {
    SCOPED_TRACE(bad);
    expect_error<std::invalid_argument>([&] { parse_decays(bad, true); }, {"--decay", "unknown value", "normal, fast"});
  }
  expect_error<std::invalid_argument>([] { parse_decays("normal,fats", false); }, {"'fats'"});
}

} // namespace
} // namespace kda::cli
