#pragma once
// A fresh directory per test under the system temp dir, removed afterwards.
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unistd.h>

#include <gtest/gtest.h>

namespace kda::test {

class temp_dir_test : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = std::filesystem::temp_directory_path() /
            (std::string("kda_test_") + info->test_suite_name() + "_" + info->name() + "_" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  const std::filesystem::path& dir() const { return m_dir; }

  void write_bytes(const std::filesystem::path& p, std::string_view bytes) const {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string read_bytes(const std::filesystem::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

private:
  std::filesystem::path m_dir;
};

// Runs `f`, expects an exception of type E whose message holds every one of `parts`.
template <typename E, typename F>
void expect_error(F f, std::initializer_list<std::string_view> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const auto part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part;
    }
  }
}

} // namespace kda::test
