#include "report/results_paths.hpp"

#include <ctime>
#include <string_view>

#include <fmt/format.h>

#include "report/errors.hpp"

namespace kda::report {
namespace {

bool slug_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '.';
}

// Appends the words of `text` to `out`, '-' before each word; `glue_spaces` joins words that only
// spaces separate ("132 SMs" -> "132SMs").
void append_words(std::string& out, std::string_view text, bool glue_spaces) {
  bool boundary = true;
  for (const char ch : text) {
    if (slug_char(ch)) {
      if (boundary && !out.empty()) out += '-';
      out += ch;
      boundary = false;
    } else if (!(glue_spaces && ch == ' ')) {
      boundary = true;
    }
  }
}

// "x.json" -> "x.<tag>.json"; a name without .json gets ".<tag>.json" appended.
std::string sibling_results_path(const std::string& out, std::string_view tag) {
  constexpr std::string_view ext = ".json";
  const std::string suffix = fmt::format(".{}.json", tag);
  if (out.size() > ext.size() && std::string_view(out).ends_with(ext)) {
    return out.substr(0, out.size() - ext.size()) + suffix;
  }
  return out + suffix;
}

} // namespace

std::string gpu_class_slug(std::string_view gpu_class) {
  std::string out;
  const auto open = gpu_class.find('(');
  const auto close = gpu_class.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    append_words(out, gpu_class.substr(0, open), false);
    // Items of the parenthesis: "sm_90, 132 SMs".
    std::string_view items = gpu_class.substr(open + 1, close - open - 1);
    while (!items.empty()) {
      const auto comma = items.find(',');
      std::string item;
      append_words(item, items.substr(0, comma), true);
      if (!item.empty()) out += (out.empty() ? "" : "-") + item;
      items = comma == std::string_view::npos ? std::string_view{} : items.substr(comma + 1);
    }
    append_words(out, gpu_class.substr(close + 1), false);
  } else {
    append_words(out, gpu_class, false);
  }
  if (out.empty()) {
    throw report_error(fmt::format("GPU class '{}' gives an empty folder name", gpu_class));
  }
  return out;
}

std::filesystem::path dated_results_path(const std::filesystem::path& dir, std::string_view date) {
  std::filesystem::path p = dir / fmt::format("{}.json", date);
  for (int n = 2; std::filesystem::exists(p); ++n) p = dir / fmt::format("{}-{}.json", date, n);
  return p;
}

std::string utc_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string before_results_path(const std::string& out) { return sibling_results_path(out, "before"); }

std::string partial_results_path(const std::string& out) { return sibling_results_path(out, "partial"); }

} // namespace kda::report
