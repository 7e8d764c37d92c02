#pragma once
// Lets a header be shared by host C++ and CUDA device code (the input generator, bf16 rounding).
#if defined(__CUDACC__)
#define KDA_HD __host__ __device__ __forceinline__
#else
#define KDA_HD inline
#endif
