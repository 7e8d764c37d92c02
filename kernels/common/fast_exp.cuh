#pragma once
// exp(x) on the special-function unit with denormal results flushed to zero.
//
// __expf(x) is ex2.approx(x log2 e) plus, to keep results below 2^-126 (denormal), a range test
// and two predicated rescaling multiplies around every MUFU.EX2: 5 instructions instead of 2.
// bwd_grad evaluates a few hundred of them per thread, and its run time follows its code size
// (instruction-cache misses, docs/perf-log.md bwd v5). Flushing changes a result only where
// exp(x) < 1.2e-38: there it gives 0 instead of a denormal, in factors that multiply O(1) data
// and are summed with O(1e-3) terms, far below FP32 resolution of any output.
// The multiply is __expf's own (x times log2 e rounded to float), so every result >= 2^-126 is
// bit-identical to __expf's.
namespace kda::dev {

__device__ __forceinline__ float exp_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x * 1.44269502162933349609375f));
  return y;
}

} // namespace kda::dev
