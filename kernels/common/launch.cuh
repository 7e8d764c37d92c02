#pragma once
// One launch, optionally as the programmatic dependent of the previous kernel in the stream
// (sm_90 programmatic dependent launch): its CTAs may be scheduled once every CTA of that kernel
// has started (or has run griddepcontrol.launch_dependents), instead of after it completes. The
// dependent itself must then wait for what it reads (common/ready_flags.cuh) and run
// griddepcontrol.wait before it ends, so that later work in the stream stays after both.
#include <cstddef>

#include <cuda_runtime.h>

namespace kda::dev {

template <auto Kernel, typename... Args>
cudaError_t launch_kernel(dim3 grid, unsigned threads, std::size_t smem, bool early, cudaStream_t stream,
                          const Args&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  if (early) {
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&cfg, Kernel, args...);
}

} // namespace kda::dev
