// Host side of the per-block timeline (common/timeline.cuh, docs/timeline.md). Only a build with
// -DKDA_TIMELINE=ON does anything here, and only where KDA_TIMELINE_OUT names where to write.
#include "common/timeline.cuh"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kda::dev {
namespace {

std::vector<void (*)(tl_table*)>& setters() {
  static std::vector<void (*)(tl_table*)> s;
  return s;
}

#if KDA_TIMELINE
const char* const k_row_names[tl_count] = {"intra", "state", "output", "dh", "grad", "reduce"};

// A row with nothing recorded: start all ones, end zero (stream order).
void clear_row(tl_table* t, int row, cudaStream_t stream) {
  cudaMemsetAsync(t->start[row], 0xff, sizeof t->start[row], stream);
  cudaMemsetAsync(t->end[row], 0, sizeof t->end[row], stream);
  cudaMemsetAsync(t->mark[row], 0, sizeof t->mark[row], stream);
}

void clear_all(tl_table* t) {
  for (int row = 0; row < tl_count; ++row) clear_row(t, row, nullptr);
}

// Rows that may hold blocks since they were last cleared (tl_rows_for_call).
unsigned& dirty_rows() {
  static unsigned d = 0;
  return d;
}

// The table, allocated at the first kda_fwd / kda_bwd where KDA_TIMELINE_OUT is set; null otherwise.
tl_table* table() {
  static tl_table* t = [] {
    tl_table* p = nullptr;
    if (!std::getenv("KDA_TIMELINE_OUT") || cudaMalloc(&p, sizeof(tl_table)) != cudaSuccess) return static_cast<tl_table*>(nullptr);
    clear_all(p);
    for (auto set : setters()) set(p);
    return p;
  }();
  return t;
}
#endif

} // namespace

void tl_register(void (*set_table)(tl_table*)) { setters().push_back(set_table); }

void tl_reset([[maybe_unused]] cudaStream_t stream, [[maybe_unused]] bool fwd, [[maybe_unused]] bool replay_bwd) {
#if KDA_TIMELINE
  tl_table* const t = table();
  if (!t) return;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError(); // not the caller's error: clear it, and clear every row to be safe
    capture = cudaStreamCaptureStatusActive;
  }
  const tl_rows rows = tl_rows_for_call(dirty_rows(), fwd, replay_bwd, capture != cudaStreamCaptureStatusNone);
  for (int row = 0; row < tl_count; ++row) {
    if (rows.clear & tl_bit(static_cast<tl_kernel>(row))) clear_row(t, row, stream);
  }
  dirty_rows() = rows.dirty;
#endif
}

void tl_touch_all() {
#if KDA_TIMELINE
  dirty_rows() = k_tl_all_rows;
#endif
}

// KDA_TIMELINE_OUT-N.csv, N counting the plans written by this process: one line per recorded
// block, `kernel,block,sm,start_us,end_us,mark0_us,...`, times from the earliest start in the
// table; a mark the block did not stamp is left empty.
void tl_write([[maybe_unused]] const char* what) {
#if KDA_TIMELINE
  tl_table* const t = table();
  if (!t || cudaDeviceSynchronize() != cudaSuccess) return;
  std::vector<tl_table> host(1);
  if (cudaMemcpy(host.data(), t, sizeof(tl_table), cudaMemcpyDeviceToHost) != cudaSuccess) return;
  const tl_table& h = host[0];
  unsigned long long t0 = ~0ull;
  for (int r = 0; r < tl_count; ++r) {
    for (int b = 0; b < k_tl_blocks; ++b) t0 = h.start[r][b] < t0 ? h.start[r][b] : t0;
  }
  static int written = 0;
  const std::string path = std::string(std::getenv("KDA_TIMELINE_OUT")) + "-" + std::to_string(written++) + ".csv";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "# libkda timeline: %s\nkernel,block,sm,start_us,end_us", what);
    for (int i = 0; i < k_tl_marks; ++i) std::fprintf(f, ",mark%d_us", i);
    std::fputc('\n', f);
    for (int r = 0; r < tl_count; ++r) {
      for (int b = 0; b < k_tl_blocks; ++b) {
        if (h.start[r][b] == ~0ull || h.end[r][b] == 0) continue;
        std::fprintf(f, "%s,%d,%u,%.3f,%.3f", k_row_names[r], b, h.sm[r][b], (h.start[r][b] - t0) * 1e-3,
                     (h.end[r][b] - t0) * 1e-3);
        for (int i = 0; i < k_tl_marks; ++i) {
          if (h.mark[r][i][b] != 0) std::fprintf(f, ",%.3f", (h.mark[r][i][b] - t0) * 1e-3);
          else std::fputc(',', f);
        }
        std::fputc('\n', f);
      }
    }
    std::fclose(f);
  }
  clear_all(t); // the next plan starts from an empty table
#endif
}

} // namespace kda::dev
