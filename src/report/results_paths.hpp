#pragma once
// Where results files go besides --out: the nightly's GPU-class folders,
// results/<gpu-class-slug>/baseline.json and one results/<gpu-class-slug>/<YYYY-MM-DD>[-N].json per
// run (docs/nightly.md), and --before's document beside --out.
#include <filesystem>
#include <string>
#include <string_view>

#include "report/errors.hpp"

namespace kda::report {

// A GPU class as a folder name: "H200 (sm_90, 132 SMs)" -> "H200-sm_90-132SMs". Words of the name
// are joined by '-', each parenthesised item loses its spaces; characters other than letters,
// digits, '_' and '.' separate words. Throws report_error if nothing is left.
std::string gpu_class_slug(std::string_view gpu_class);

// `dir`/`date`.json, or the first of `dir`/`date`-2.json, -3, ... that does not exist yet: a
// nightly never overwrites an earlier run of the same day.
std::filesystem::path dated_results_path(const std::filesystem::path& dir, std::string_view date);

// Today's UTC date, "2026-12-02".
std::string utc_date_today();

// Where --before's results go beside `out`: "results/x.json" -> "results/x.before.json" (a name
// without .json gets ".before.json" appended).
std::string before_results_path(const std::string& out);

// Where a run of several row keys keeps the rows finished so far: "results/x.json" ->
// "results/x.partial.json", rewritten after every row and removed once `out` is written, so a run
// that is killed (a time limit, a crash) still leaves every finished row behind.
std::string partial_results_path(const std::string& out);

} // namespace kda::report
