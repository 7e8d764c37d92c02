#pragma once
// Golden-file comparison for rendered text (tables). KDA_UPDATE_GOLDEN=1 rewrites the file after an
// intended format change (and skips the test, so a rewrite never passes silently).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace kda::test {

inline void expect_golden(const std::string& rendered, const std::filesystem::path& path) {
  if (std::getenv("KDA_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << rendered;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path;
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(rendered, golden.str()) << "differs from " << path;
}

} // namespace kda::test
