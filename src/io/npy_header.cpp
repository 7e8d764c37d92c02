#include "io/npy_header.hpp"

#include <cctype>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kda::io {
namespace {

constexpr std::size_t k_magic_len = 8;      // "\x93NUMPY" + major + minor
constexpr std::size_t k_align = 64;         // numpy's ARRAY_ALIGN
constexpr std::size_t k_growth_digits = 21; // numpy's GROWTH_AXIS_MAX_DIGITS

// A cursor over the dict text with the few Python literals a .npy header uses.
class dict_parser {
public:
  dict_parser(std::string_view text, std::string_view source) : m_text(text), m_source(source) {}

  npy_header parse() {
    npy_header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        h.descr = parse_string();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = parse_bool();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = parse_shape();
        seen_shape = true;
      } else {
        fail(fmt::format("unexpected key '{}' (a .npy header has descr, fortran_order, shape)",
                         key));
      }
      skip_space();
      if (peek() == ',') ++m_pos;
    }
    expect('}');
    if (!seen_descr || !seen_fortran || !seen_shape) {
      fail("header lacks one of the keys descr, fortran_order, shape");
    }
    return h;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    std::string_view shown = m_text.substr(0, m_text.find_last_not_of(" \n") + 1);
    if (shown.size() > 200) shown = shown.substr(0, 200);
    throw npy_error(fmt::format("{}: bad .npy header: {} (at byte {} of header \"{}\")", m_source,
                                what, m_pos, shown));
  }

  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
      ++m_pos;
  }

  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++m_pos;
  }

  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t end = m_text.find(quote, m_pos + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string s(m_text.substr(m_pos + 1, end - m_pos - 1));
    m_pos = end + 1;
    return s;
  }

  bool parse_bool() {
    skip_space();
    if (m_text.substr(m_pos, 4) == "True") {
      m_pos += 4;
      return true;
    }
    if (m_text.substr(m_pos, 5) == "False") {
      m_pos += 5;
      return false;
    }
    fail("expected True or False");
  }

  std::int64_t parse_int() {
    skip_space();
    const std::size_t start = m_pos;
    std::int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = peek() - '0';
      if (v > (INT64_MAX - digit) / 10) fail("shape dimension too large");
      v = v * 10 + digit;
      ++m_pos;
    }
    if (m_pos == start) fail("expected a non-negative integer in shape");
    if (peek() == 'L') ++m_pos; // Python 2 long, in files written by old numpy
    return v;
  }

  std::vector<std::int64_t> parse_shape() {
    std::vector<std::int64_t> shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      shape.push_back(parse_int());
      skip_space();
      if (peek() == ',') {
        ++m_pos;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in shape");
      }
    }
    expect(')');
    return shape;
  }

  std::string_view m_text;
  std::string_view m_source;
  std::size_t m_pos = 0;
};

} // namespace

std::string shape_repr(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string format_npy_preamble(const npy_header& header) {
  // Keys in sorted order and the trailing ", }" as Python's repr loop in numpy writes them.
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", header.descr,
                  header.fortran_order ? "True" : "False", shape_repr(header.shape));
  // numpy leaves room for the first axis to grow to 21 digits without rewriting the file.
  if (!header.shape.empty()) {
    const std::int64_t axis = header.fortran_order ? header.shape.back() : header.shape.front();
    const std::size_t digits = fmt::formatted_size("{}", axis);
    if (digits < k_growth_digits) dict.append(k_growth_digits - digits, ' ');
  }
  // Spaces, then '\n', so that magic + length field + dict is a multiple of 64 bytes. Like numpy,
  // a dict that would already align exactly still gets a full 64 bytes of padding.
  const std::size_t hlen = dict.size() + 1;
  const std::size_t pad = k_align - (k_magic_len + 2 + hlen) % k_align;
  dict.append(pad, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xffff) {
    throw npy_error(fmt::format("npy header of {} bytes does not fit format 1.0", dict.size()));
  }
  std::string out("\x93NUMPY\x01\x00", k_magic_len);
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  return out;
}

npy_header parse_npy_header_dict(std::string_view text, std::string_view source) {
  return dict_parser(text, source).parse();
}

} // namespace kda::io
