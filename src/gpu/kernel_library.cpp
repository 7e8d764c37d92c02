#include "gpu/kernel_library.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace kda {
namespace {

template <typename F>
void resolve(void* handle, const char* name, F& out, const std::string& path) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (!out) throw std::runtime_error("kernel library " + path + " lacks symbol " + name);
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : p.parent_path();
}

} // namespace

kernel_library::kernel_library(const std::string& path) : m_path(path) {
  m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_handle) {
    const char* err = dlerror();
    throw std::runtime_error("cannot load kernel library " + path + ": " + (err ? err : "unknown error"));
  }
  resolve(m_handle, "kda_abi_version", m_abi_version, path);
  if (m_abi_version() != KDA_ABI_VERSION) {
    throw std::runtime_error("kernel library " + path + " has ABI version " + std::to_string(m_abi_version()) +
                             ", this harness needs " + std::to_string(KDA_ABI_VERSION));
  }
  resolve(m_handle, "kda_build_id", m_build_id, path);
  resolve(m_handle, "kda_last_error", m_last_error, path);
  resolve(m_handle, "kda_plan_create", m_plan_create, path);
  resolve(m_handle, "kda_plan_destroy", m_plan_destroy, path);
  resolve(m_handle, "kda_saved_bytes", m_saved_bytes, path);
  resolve(m_handle, "kda_fwd", m_fwd, path);
  resolve(m_handle, "kda_bwd", m_bwd, path);
  resolve(m_handle, "kda_stage_names", m_stage_names, path);
  resolve(m_handle, "kda_run_stage", m_run_stage, path);
}

kernel_library::~kernel_library() {
  if (m_handle) dlclose(m_handle);
}

void kernel_library::check(kda_status s, const char* what) const {
  if (s != KDA_OK) throw std::runtime_error(std::string(what) + " failed in " + m_path + ": " + m_last_error());
}

kernel_library::plan::plan(const kernel_library& lib, const kda_problem& problem) : m_lib(lib) {
  lib.check(lib.m_plan_create(&problem, &m_plan), "kda_plan_create");
}

kernel_library::plan::~plan() {
  if (m_plan) m_lib.m_plan_destroy(m_plan);
}

std::size_t kernel_library::plan::saved_bytes() const { return m_lib.m_saved_bytes(m_plan); }

void kernel_library::fwd(const plan& p, const kda_fwd_args& a, void* stream) const {
  check(m_fwd(p.get(), &a, stream), "kda_fwd");
}

void kernel_library::bwd(const plan& p, const kda_bwd_args& a, void* stream) const {
  check(m_bwd(p.get(), &a, stream), "kda_bwd");
}

bool kernel_library::has_bwd() const { return stage_count("bwd") > 0; }

int kernel_library::stage_count(const char* op) const { return m_stage_names(op, nullptr, 0); }

std::string kernel_library::stage_name(const char* op, int stage) const {
  std::array<const char*, 32> names{};
  const int n = m_stage_names(op, names.data(), static_cast<int>(names.size()));
  return stage >= 0 && stage < n && names[stage] ? names[stage] : "?";
}

void kernel_library::run_stage(const plan& p, const char* op, int stage, const kda_bwd_args& a,
                               void* stream) const {
  check(m_run_stage(p.get(), op, stage, &a, stream), "kda_run_stage");
}

std::string default_kernel_library_path() {
  if (const char* env = std::getenv("KDA_LIBRARY"); env && *env) return env;
  const auto dir = executable_dir();
  for (const auto& cand : {dir / "libkda.so", dir / ".." / "kernels" / "libkda.so", dir / ".." / ".." / "kernels" / "libkda.so"}) {
    if (std::filesystem::exists(cand)) return std::filesystem::weakly_canonical(cand).string();
  }
  return {};
}

} // namespace kda
