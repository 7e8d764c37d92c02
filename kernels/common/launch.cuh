#pragma once
// One launch, optionally as the programmatic dependent of the previous kernel in the stream
// (sm_90 programmatic dependent launch): its CTAs may be scheduled once every CTA of that kernel
// has started (or has run griddepcontrol.launch_dependents), instead of after it completes. The
// dependent itself must then wait for what it reads (common/ready_flags.cuh) and run
// griddepcontrol.wait before it ends, so that later work in the stream stays after both.
#include <cstddef>

#include <cuda_runtime.h>

namespace kda::dev {

// With `cluster` > 1 the grid's x extent is split into thread-block clusters of that many CTAs
// (sm_90: co-scheduled, with access to each other's shared memory; common/cluster.cuh).
template <auto Kernel, typename... Args>
cudaError_t launch_kernel_clustered(dim3 grid, unsigned threads, std::size_t smem, bool early, unsigned cluster,
                                    cudaStream_t stream, const Args&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attrs[2]{};
  unsigned n = 0;
  if (early) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n++].val.clusterDim = {cluster, 1, 1};
  }
  cfg.attrs = n ? attrs : nullptr;
  cfg.numAttrs = n;
  return cudaLaunchKernelEx(&cfg, Kernel, args...);
}

template <auto Kernel, typename... Args>
cudaError_t launch_kernel(dim3 grid, unsigned threads, std::size_t smem, bool early, cudaStream_t stream,
                          const Args&... args) {
  return launch_kernel_clustered<Kernel>(grid, threads, smem, early, 1u, stream, args...);
}

} // namespace kda::dev
