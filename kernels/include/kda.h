/* kda.h: the public C ABI of libkda, deterministic chunked KDA (Kimi Delta Attention) training
 * kernels for NVIDIA Hopper (sm_90a).
 *
 * Maths and layout: docs/kernels.md (and ../shared/docs/kda-algorithm.md). Tensors are packed
 * token-major over all sequences of a variable-length batch: q, k [T, H, K], v [T, H, V],
 * beta [T, H], g or x [T, H, K], A_log [H], dt_bias [H, K]; K = V = 128, chunk 64.
 *
 * Use: kda_plan_create() once per batch shape (it reads cu_seqlens on the host and builds the
 * chunk tables), then kda_fwd() / kda_bwd() any number of times on a stream, kda_plan_destroy().
 * Every call is bitwise deterministic: same inputs, same output bits, on every run.
 *
 * The harness loads this library with dlopen and resolves the symbols below by name, so two
 * builds can be compared in one process. Bump KDA_ABI_VERSION on any incompatible change. */
#ifndef KDA_H
#define KDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KDA_ABI_VERSION 1

#if defined(KDA_BUILDING_LIBRARY)
#define KDA_API __attribute__((visibility("default")))
#else
#define KDA_API
#endif

typedef enum kda_status {
  KDA_OK = 0,
  KDA_ERR_INVALID_ARGUMENT = 1, /* bad shape, null pointer, unsupported head dim, ... */
  KDA_ERR_CUDA = 2,             /* a CUDA call failed: kda_last_error() says which */
  KDA_ERR_OUT_OF_MEMORY = 3,
  KDA_ERR_UNSUPPORTED = 4 /* a variant or op this build does not implement */
} kda_status;

typedef enum kda_gate_form { KDA_GATE_G = 0, KDA_GATE_RAW = 1 } kda_gate_form;
typedef enum kda_l2n_mode { KDA_L2N_OFF = 0, KDA_L2N_FUSED = 1 } kda_l2n_mode;

typedef struct kda_problem {
  const int32_t* cu_seqlens_host; /* [num_seqs + 1], host memory, read by kda_plan_create only */
  int32_t num_seqs;
  int32_t heads;
  int32_t k_dim; /* must be 128 */
  int32_t v_dim; /* must be 128 */
  kda_gate_form gate;
  kda_l2n_mode l2n;
  float scale; /* 0: K^-0.5 */
} kda_problem;

typedef struct kda_plan kda_plan; /* opaque: chunk tables and workspace on the device */

/* Device pointers. bf16 tensors are passed as void*. q, k, v, o, saved and, in kda_bwd_args,
 * d_o, dq, dk, dv and, for KDA_GATE_RAW, the gate x must be 16-byte aligned (cudaMalloc gives
 * 256): the kernels move them in 16-byte pieces; kda_fwd / kda_bwd refuse others with
 * KDA_ERR_INVALID_ARGUMENT. */
typedef struct kda_fwd_args {
  const void* q;         /* bf16 [T, H, K] */
  const void* k;         /* bf16 [T, H, K] */
  const void* v;         /* bf16 [T, H, V] */
  const void* beta;      /* bf16 [T, H] */
  const float* gate_in;  /* fp32 [T, H, K]: g (KDA_GATE_G) or x (KDA_GATE_RAW) */
  const float* A_log;    /* fp32 [H], raw form only */
  const float* dt_bias;  /* fp32 [H, K], raw form only */
  void* o;               /* bf16 [T, H, V], output */
  void* saved;           /* kda_saved_bytes() of device memory for the backward, or NULL */
} kda_fwd_args;

typedef struct kda_bwd_args {
  kda_fwd_args fwd;      /* the forward's inputs; fwd.o is unused; fwd.saved: saved set or NULL
                          * (NULL: checkpoint replay, the backward recomputes what it needs) */
  const void* d_o;       /* bf16 [T, H, V] */
  void* dq;              /* bf16 [T, H, K] */
  void* dk;              /* bf16 [T, H, K] */
  void* dv;              /* bf16 [T, H, V] */
  void* dbeta;           /* bf16 [T, H] */
  float* dgate;          /* fp32 [T, H, K]: dg (g form) or dx (raw form) */
  float* dA_log;         /* fp32 [H], raw form only */
  float* ddt_bias;       /* fp32 [H, K], raw form only */
} kda_bwd_args;

KDA_API int kda_abi_version(void);
/* A string naming this build: version, git revision (at configure time), a hash of the kernel
 * sources (so builds of different kernel code never share an id), architectures, build flags. */
KDA_API const char* kda_build_id(void);
/* The message of the last failure on this thread (empty if none). */
KDA_API const char* kda_last_error(void);

KDA_API kda_status kda_plan_create(const kda_problem* problem, kda_plan** plan);
KDA_API void kda_plan_destroy(kda_plan* plan);

/* Bytes of the saved set that kda_fwd writes for the `saved` backward path. */
KDA_API size_t kda_saved_bytes(const kda_plan* plan);

/* stream: a cudaStream_t (0 = the legacy default stream). A plan's calls (kda_fwd, kda_bwd,
 * kda_run_stage) must be ordered on one stream: they share the plan's workspace, and a stage may
 * start before the stage that feeds it ends (a state pass beside the intra stage, fwd_output
 * beside the state pass, bwd_grad beside bwd_dh), waiting on the plan's per-tile ready flags (not
 * in calls captured into a CUDA graph: there the stages run one after the other). */
KDA_API kda_status kda_fwd(const kda_plan* plan, const kda_fwd_args* args, void* stream);
KDA_API kda_status kda_bwd(const kda_plan* plan, const kda_bwd_args* args, void* stream);

/* Kernel stages of the last plan's forward/backward, for per-stage timing: stage i of op
 * ("fwd" or "bwd") is launched alone by kda_run_stage (same arguments as the op). Returns the
 * number of stages and fills names[i] (static strings) when names != NULL. */
KDA_API int kda_stage_names(const char* op, const char** names, int max_names);
KDA_API kda_status kda_run_stage(const kda_plan* plan, const char* op, int stage, const kda_bwd_args* args,
                         void* stream);

#ifdef __cplusplus
}
#endif

#endif /* KDA_H */
