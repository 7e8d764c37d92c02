// Host-side parts of the GPU description that need no device.
#include <gtest/gtest.h>

#include "gpu/device_info.hpp"

namespace kda {
namespace {

TEST(host_device_info, driver_version_from_the_proprietary_module_line) {
  EXPECT_EQ(parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Thu Jan 29 2026"),
            "580.159.03");
}

TEST(host_device_info, driver_version_from_the_open_module_line) {
  // Seen on the lent H200 (2026-12-02): the word after "Module" is "for", not the version.
  EXPECT_EQ(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
                                        "Release Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Jan 29 2026"),
            "580.159.04");
}

TEST(host_device_info, no_version_gives_empty) {
  EXPECT_EQ(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module"), "");
  EXPECT_EQ(parse_nvidia_driver_version(""), "");
}

TEST(host_device_info, gpu_class_names_arch_and_sms) {
  gpu_description g;
  g.short_name = "H200";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sm_count = 132;
  EXPECT_EQ(g.gpu_class(), "H200 (sm_90, 132 SMs)");
}

} // namespace
} // namespace kda
