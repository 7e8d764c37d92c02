// Host side of common/tile_maps.cuh: cuTensorMapEncodeTiled, reached through the runtime's
// driver entry point so that libkda links against the runtime alone.
#include "common/tile_maps.cuh"

#include <cudaTypedefs.h> // PFN_cuTensorMapEncodeTiled_v12000

namespace kda::dev {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      p = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// The one call every map below makes: rank-N tiled map, no interleave, 256-byte L2 promotion, no
// out-of-bounds fill (the tiles are never read past their tensor). dims / strides in elements /
// bytes, innermost first; strides has rank - 1 entries.
cudaError_t encode(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                   const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                   CUtensorMapSwizzle swizzle) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = encoder();
  if (!fn) return cudaErrorNotSupported;
  const cuuint32_t elem[3] = {1, 1, 1};
  const CUresult r = fn(map, type, rank, const_cast<void*>(base), dims, strides, box, elem,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

} // namespace

cudaError_t make_rows_map(CUtensorMap* map, const __nv_bfloat16* base, std::size_t rows, int width, int box_rows,
                          int box_cols) {
  if (box_cols != 64 && box_cols != 16) return cudaErrorInvalidValue;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(width), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(width) * 2}; // bytes between rows
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  // the swizzle span is a box row: 128 bytes (box_offset, swz_offset) or 32 (swz32_offset)
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box,
                box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_32B);
}

cudaError_t make_token_head_map(CUtensorMap* map, const __nv_bfloat16* base, int tokens, int heads) {
  const cuuint64_t dims[3] = {128, static_cast<cuuint64_t>(heads), static_cast<cuuint64_t>(tokens)};
  const cuuint64_t strides[2] = {128 * 2, static_cast<cuuint64_t>(heads) * 128 * 2}; // bytes between heads, tokens
  const cuuint32_t box[3] = {64, 1, 64};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, base, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}

cudaError_t make_tile_map(CUtensorMap* map, const __nv_bfloat16* base, std::size_t tiles, int width) {
  return make_rows_map(map, base, tiles * 64, width, 64);
}

cudaError_t make_f32_map(CUtensorMap* map, const float* base, std::size_t rows, int box_cols, int box_rows,
                         bool swizzle128) {
  const cuuint64_t dims[2] = {128, static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {128 * 4}; // bytes between rows
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box,
                swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE);
}

} // namespace kda::dev
