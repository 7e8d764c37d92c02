#pragma once
// A libkda build loaded at run time (dlopen), so that two builds (--before) can run in one
// process. Resolves the C ABI of kernels/include/kda.h by name.
#include <memory>
#include <string>

#include "kda.h"

namespace kda {

class kernel_library {
public:
  // Throws std::runtime_error naming the path and the dlopen/dlsym failure.
  explicit kernel_library(const std::string& path);
  ~kernel_library();
  kernel_library(const kernel_library&) = delete;
  kernel_library& operator=(const kernel_library&) = delete;

  const std::string& path() const { return m_path; }
  std::string build_id() const { return m_build_id(); }
  std::string last_error() const { return m_last_error(); }

  // Owns a kda_plan of this library; destroyed exactly once.
  class plan {
  public:
    plan(const kernel_library& lib, const kda_problem& problem);
    ~plan();
    plan(const plan&) = delete;
    plan& operator=(const plan&) = delete;
    const kda_plan* get() const { return m_plan; }
    std::size_t saved_bytes() const;

  private:
    const kernel_library& m_lib;
    kda_plan* m_plan = nullptr;
  };

  // Each throws std::runtime_error with the library's last error on failure.
  void fwd(const plan& p, const kda_fwd_args& a, void* stream) const;
  void bwd(const plan& p, const kda_bwd_args& a, void* stream) const;
  bool has_bwd() const; // false if the build reports the backward as unsupported
  int stage_count(const char* op) const;
  std::string stage_name(const char* op, int stage) const;
  void run_stage(const plan& p, const char* op, int stage, const kda_bwd_args& a, void* stream) const;

private:
  void check(kda_status s, const char* what) const;

  std::string m_path;
  void* m_handle = nullptr;
  decltype(&::kda_abi_version) m_abi_version = nullptr;
  decltype(&::kda_build_id) m_build_id = nullptr;
  decltype(&::kda_last_error) m_last_error = nullptr;
  decltype(&::kda_plan_create) m_plan_create = nullptr;
  decltype(&::kda_plan_destroy) m_plan_destroy = nullptr;
  decltype(&::kda_saved_bytes) m_saved_bytes = nullptr;
  decltype(&::kda_fwd) m_fwd = nullptr;
  decltype(&::kda_bwd) m_bwd = nullptr;
  decltype(&::kda_stage_names) m_stage_names = nullptr;
  decltype(&::kda_run_stage) m_run_stage = nullptr;
};

// Where the default kernel library is: $KDA_LIBRARY, else libkda.so next to the executable,
// else the build tree's kernels/ folder. Empty if none exists.
std::string default_kernel_library_path();

} // namespace kda
