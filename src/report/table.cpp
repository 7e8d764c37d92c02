#include "report/table.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>

namespace kda::report {
namespace {

constexpr std::string_view k_missing = "—"; // U+2014, markdown cells without a value

// One line of a table: the entry from BEFORE and the one from AFTER, either may be absent.
template <typename Entry> struct entry_pair {
  const Entry* before = nullptr;
  const Entry* after = nullptr;
  const Entry& any() const { return after ? *after : *before; }
  bool both() const { return before && after; }
};

// With `common_only`, the pairs that have both sides; else all of them.
template <typename Entry>
std::vector<entry_pair<Entry>> keep(std::vector<entry_pair<Entry>> pairs, bool common_only) {
  if (common_only) std::erase_if(pairs, [](const entry_pair<Entry>& p) { return !p.both(); });
  return pairs;
}

// Pairs entries by key: AFTER's entries in their order, then those only in BEFORE in theirs.
// `describe` names an entry in the error for a key listed twice in one document.
template <typename Entry, typename KeyOf, typename Describe>
std::vector<entry_pair<Entry>> pair_up(const std::vector<Entry>& before,
                                       const std::vector<Entry>& after, KeyOf key_of,
                                       Describe describe) {
  using key_t = decltype(key_of(std::declval<const Entry&>()));
  const auto check_unique = [&](const std::vector<Entry>& side, std::string_view side_name) {
    std::set<key_t> seen;
    for (const auto& e : side) {
      if (!seen.insert(key_of(e)).second) {
        throw report_error(fmt::format("{} results list {} twice", side_name, describe(e)));
      }
    }
  };
  check_unique(before, "BEFORE");
  check_unique(after, "AFTER");
  std::vector<entry_pair<Entry>> out;
  std::map<key_t, std::size_t> index;
  for (const auto& e : after) {
    index.emplace(key_of(e), out.size());
    out.push_back({nullptr, &e});
  }
  for (const auto& e : before) {
    const auto it = index.find(key_of(e));
    if (it != index.end()) {
      out[it->second].before = &e;
    } else {
      out.push_back({&e, nullptr});
    }
  }
  return out;
}

std::vector<entry_pair<timing_entry>> pair_timing(const results_doc& before,
                                                  const results_doc& after) {
  return pair_up(
      before.timing, after.timing, [](const timing_entry& e) { return key_of(e); },
      [](const timing_entry& e) { return fmt::format("the timing of {} {}", e.row, op_label(e)); });
}

std::vector<entry_pair<accuracy_entry>> pair_accuracy(const results_doc& before,
                                                      const results_doc& after) {
  return pair_up(
      before.accuracy, after.accuracy,
      [](const accuracy_entry& e) {
        return std::tuple{e.row, e.decay, e.tensor};
      },
      [](const accuracy_entry& e) {
        return fmt::format("the accuracy of {} {}, decay {}", e.row, e.tensor, to_string(e.decay));
      });
}

// RFC 4180 quoting, only where needed.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A table, rendered as markdown or CSV. Cells are already formatted; `right` marks numeric
// columns.
struct table {
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> rows;

  std::string markdown() const {
    std::string out = fmt::format("| {} |\n|", fmt::join(header, " | "));
    for (const bool r : right) out += r ? "---:|" : "---|";
    out += '\n';
    for (const auto& row : rows) out += fmt::format("| {} |\n", fmt::join(row, " | "));
    return out;
  }

  std::string csv() const {
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) out += ',';
        out += csv_field(cells[i] == k_missing ? std::string() : cells[i]);
      }
      out += '\n';
    };
    line(header);
    for (const auto& row : rows) line(row);
    return out;
  }
};

std::string ms_cell(const timing_entry* e) {
  return e ? fmt::format("{:.4f}", e->median_ms) : std::string(k_missing);
}

table time_table(const std::vector<entry_pair<timing_entry>>& pairs, const table_options& opt) {
  // The op column says "op/stage" only when some entry shown is a stage, so tables of runs without
  // --stages keep their old form.
  const bool stages = std::any_of(pairs.begin(), pairs.end(), [](const entry_pair<timing_entry>& p) {
    return p.any().stage.has_value();
  });
  table t{{"row", stages ? "op/stage" : "op", "before (ms)", "after (ms)", "after/before"},
          {false, false, true, true, true},
          {}};
  if (opt.verdicts) {
    t.header.push_back("verdict");
    t.right.push_back(false);
  }
  for (const auto& p : pairs) {
    const timing_entry& e = p.any();
    std::vector<std::string> row{e.row, op_label(e), ms_cell(p.before), ms_cell(p.after),
                                 std::string(k_missing)};
    if (p.before && p.after && p.before->median_ms > 0) {
      row[4] = fmt::format("{:.4f}", p.after->median_ms / p.before->median_ms);
    }
    if (opt.verdicts) {
      const auto it = opt.verdicts->find(key_of(e));
      row.push_back(it != opt.verdicts->end() ? std::string(to_string(it->second))
                                              : std::string(k_missing));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

bool has_error_value(const accuracy_entry* e) {
  return e && e->status != accuracy_status::non_finite && std::isfinite(e->rel_l2);
}

// One side's figure of an accuracy entry: `k_missing` when the side has no entry, non-finite
// (`nan` in CSV) when its error is not a number, else figure(e).
template <typename Figure>
std::string figure_cell(const accuracy_entry* e, bool csv, Figure figure) {
  if (!e) return std::string(k_missing);
  if (!has_error_value(e)) return csv ? "nan" : "non-finite";
  return figure(*e);
}

// The rel. L2 error of one side. `csv`: plain numbers only (non-finite as nan).
std::string err_cell(const accuracy_entry* e, bool csv) {
  return figure_cell(e, csv, [csv](const accuracy_entry& a) {
    std::string s = fmt::format("{:.2e}", a.rel_l2);
    if (!csv && a.status == accuracy_status::failed_threshold) s += " (failed)";
    return s;
  });
}

// max |out - ref| / max |ref| and rel. L2 over the bf16 floor of one side (issue 7's columns).
std::string max_abs_cell(const accuracy_entry* e, bool csv) {
  return figure_cell(e, csv, [](const accuracy_entry& a) { return fmt::format("{:.2e}", a.max_abs_over_max_ref); });
}

std::string over_floor_cell(const accuracy_entry* e, bool csv) {
  return figure_cell(e, csv, [csv](const accuracy_entry& a) {
    return std::isfinite(a.err_over_floor) ? fmt::format("{:.2f}", a.err_over_floor)
                                           : std::string(csv ? "nan" : "non-finite");
  });
}

std::string err_ratio_cell(const entry_pair<accuracy_entry>& p) {
  if (!has_error_value(p.before) || !has_error_value(p.after) || !(p.before->rel_l2 > 0)) {
    return std::string(k_missing);
  }
  return fmt::format("{:.2f}", p.after->rel_l2 / p.before->rel_l2);
}

// Accuracy lines grouped by (row, decay), groups in first-appearance order of the paired list.
struct accuracy_group {
  std::string row;
  decay_regime decay;
  std::vector<entry_pair<accuracy_entry>> lines;
};

std::vector<accuracy_group> accuracy_groups(const results_doc& before, const results_doc& after,
                                            bool common_only) {
  std::vector<accuracy_group> groups;
  for (const auto& p : keep(pair_accuracy(before, after), common_only)) {
    const accuracy_entry& e = p.any();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const accuracy_group& g) {
      return g.row == e.row && g.decay == e.decay;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), accuracy_group{e.row, e.decay, {}});
    it->lines.push_back(p);
  }
  return groups;
}

bool same_gpu(const gpu_info& a, const gpu_info& b) {
  return a.name == b.name && a.arch == b.arch && a.sm_count == b.sm_count;
}

bool same_software(const gpu_info& a, const gpu_info& b) {
  return a.driver == b.driver && a.cuda_runtime == b.cuda_runtime && a.nvcc == b.nvcc;
}

} // namespace

one_sided_counts count_one_sided(const results_doc& before, const results_doc& after) {
  one_sided_counts n;
  for (const auto& p : pair_timing(before, after)) {
    if (!p.after) ++n.timing_before_only;
    if (!p.before) ++n.timing_after_only;
  }
  for (const auto& p : pair_accuracy(before, after)) {
    if (!p.after) ++n.accuracy_before_only;
    if (!p.before) ++n.accuracy_after_only;
  }
  return n;
}

std::string gpu_heading(const run_context& context) {
  const gpu_info& g = context.gpu;
  std::string_view name = g.name;
  if (name.starts_with("NVIDIA ")) name.remove_prefix(7);
  // Versions as the PR tables write them: major.minor ("580.159.04" -> "580.159").
  const auto major_minor = [](const std::string& v) {
    const auto first = v.find('.');
    const auto second = first == std::string::npos ? first : v.find('.', first + 1);
    return second == std::string::npos ? v : v.substr(0, second);
  };
  return fmt::format("{} ({}, {} SMs), CUDA {} (driver {}, nvcc {})", name, g.arch, g.sm_count,
                     g.cuda_runtime, major_minor(g.driver), major_minor(g.nvcc));
}

std::string render_markdown(const results_doc& before, const results_doc& after,
                            const table_options& options) {
  std::string out = fmt::format("### {}\n\n", gpu_heading(after.context));
  const gpu_info& b = before.context.gpu;
  const gpu_info& a = after.context.gpu;
  if (!same_gpu(a, b)) {
    out += fmt::format("Note: BEFORE ran on a different GPU: {}.\n\n", gpu_heading(before.context));
  } else if (!same_software(a, b)) {
    out += fmt::format("Note: BEFORE ran with different software: {}.\n\n",
                       gpu_heading(before.context));
  }
  const auto timing = keep(pair_timing(before, after), options.common_only);
  if (!timing.empty()) out += time_table(timing, options).markdown();
  for (const auto& g : accuracy_groups(before, after, options.common_only)) {
    table t{{"tensor", "before err", "after err", "after/before", "after max err / max ref", "after err / floor"},
            {false, true, true, true, true, true},
            {}};
    for (const auto& p : g.lines) {
      t.rows.push_back({p.any().tensor, err_cell(p.before, false), err_cell(p.after, false), err_ratio_cell(p),
                        max_abs_cell(p.after, false), over_floor_cell(p.after, false)});
    }
    out += fmt::format("\n#### Accuracy: {}, decay {} (rel. L2 vs FP64)\n\n", g.row,
                       to_string(g.decay));
    out += t.markdown();
  }
  return out;
}

std::string render_time_csv(const results_doc& before, const results_doc& after,
                            const table_options& options) {
  return time_table(keep(pair_timing(before, after), options.common_only), options).csv();
}

std::string render_accuracy_csv(const results_doc& before, const results_doc& after,
                                const table_options& options) {
  table t{{"row", "decay", "tensor", "before err", "after err", "after/before", "before max err / max ref",
           "after max err / max ref", "before err / floor", "after err / floor"},
          {},
          {}};
  for (const auto& g : accuracy_groups(before, after, options.common_only)) {
    for (const auto& p : g.lines) {
      t.rows.push_back({g.row, std::string(to_string(g.decay)), p.any().tensor, err_cell(p.before, true),
                        err_cell(p.after, true), err_ratio_cell(p), max_abs_cell(p.before, true),
                        max_abs_cell(p.after, true), over_floor_cell(p.before, true),
                        over_floor_cell(p.after, true)});
    }
  }
  return t.csv();
}

} // namespace kda::report
