// One training step as practitioners set it up (issue 36): a layout of tensor, pipeline, data
// (with its ZeRO stage), context and expert parallelism, a micro-batch, a rematerialisation
// policy and a pipeline schedule, priced for memory per chip (each part on its own, the largest
// pipeline stage) and for time (the largest stage's micro-batches, the schedule's bubble, the
// collectives each pass overlaps). Plain numbers in, plain structs out, no allocation: the layout
// search calls it a hundred thousand times per evaluation.
//
// Two accountings. "book" keeps the book's simplifications (api/training.md §2.4): saved
// activations as counts of [tokens, D] tensors, state spread evenly over fsdp·tp·pp, nothing at
// run time beside them, so the book's worked problems stay exact. "practice" counts what a
// framework holds: saved tensors at their true widths, the embedding and output layer on the end
// stages, fp32 logits and their gradient, FSDP's gathered layers, the allocator's reserve and the
// framework's workspace.
#pragma once
#include <array>
#include <cstdint>

namespace scalelab {

enum class Schedule : std::uint8_t { gpipe, one_f_one_b, interleaved, zero_bubble, dualpipe, last_ = dualpipe };
inline constexpr int kSchedules = 5;
// none … custom: the book's checkpointing policies (api/training.md §2.4); selective and full: the
// frameworks' names (Megatron-LM --recompute-granularity, torchtitan activation_checkpoint.mode).
enum class Remat : std::uint8_t { none, block, big_matmuls, mlp_outputs, custom, selective, full };
inline constexpr int kRemats = 7;
enum class Accounting : std::uint8_t { book, practice };
// Where the optimizer state (moments and master weights) lives: on the device, in host memory
// (ZeRO-Offload), or paged between them on demand (bitsandbytes' paged optimizers).
enum class Offload : std::uint8_t { none, host, paged };

// The model as the step sees it (built from the catalog model by training_math).
struct StepModel {
  double layers = 1, d_model = 1, vocab = 1, heads = 1, kv_heads = 1;
  double q_width = 0, k_width = 0, v_width = 0, attn_out_width = 0;  // N·H_qk, K·H_qk, K·H_v, N·H_v
  double mlp_width = 0;       // F a token computes: F, or (k + shared)·F_expert in an MoE layer
  double routed_inputs = 0;   // MoE: k [tokens, D] copies sent to the experts (0 for dense)
  bool gated = true;
  double params_total = 0, params_active = 0;
  double layer_params = 0;         // per layer, embeddings left out, experts included
  double layer_expert_params = 0;  // routed experts per layer (sharded by ep)
  double layer_active_params = 0;  // per layer, what one token multiplies by
  double embed_params = 0;         // D·V
  double head_params = 0;          // D·V; 0 when tied to the embedding
  double experts = 1;              // routed experts (1: dense)
  double attn_flops_fwd_per_token_layer = 0;  // 2·T·N·(H_qk + H_v), the book's count (no causal discount)
  double book_count = 20;          // [tokens, D] tensors per layer under the book policy asked for
  double skipped_matmul_params = 0;  // per layer: matmuls selective remat recomputes (k, o, up/down)
};

// Everything about the run but the layout.
struct StepSettings {
  Accounting accounting = Accounting::book;
  double batch_tokens = 0, seq_len = 1;
  double weight_bytes = 2, grad_bytes = 0, optimizer_bytes = 8, master_bytes = 0, act_bytes = 2;
  double flops_per_s = 0;
  double hbm_bytes = 0;               // 0: unknown (memory not checked)
  bool gpu = false;
  double workspace_bytes = 0;         // practice: CUDA context, library workspaces, NCCL buffers
  double allocator_share = 0;         // practice: share of reserved memory the allocator keeps unused
  double max_bubble = 1;              // reject a schedule whose bubble exceeds this share of the step
  double max_comm_ratio = 0;          // reject when the slowest collective exceeds this × compute (0: never)
};

// Network figures per chip, one way (bytes/s).
struct StepNetwork {
  bool gpu = false;
  double node_gpus = 8, nvlink = 0, ib = 0, pcie = 0;     // GPU
  double ici_link = 0, torus_axes = 3, longest_axis = 0;  // TPU
  double axes[3] = {0, 0, 0};                              // TPU pod axes, longest first
  double pod_chips = 0, dcn = 0;                           // beyond one pod (0: one pod)
};

struct StepLayout {
  double tp = 1, pp = 1, dp = 1, fsdp = 1, cp = 1, ep = 1;
  int zero = 0;               // ZeRO stage across the dp replicas: 0, 1 or 2 (fsdp is stage 3)
  double micro_batch = 0;     // sequences per micro-batch; 0: the whole replica batch at once
  double virtual_stages = 1;  // interleaved 1F1B: model chunks per device
  Remat remat = Remat::none;
  Schedule schedule = Schedule::one_f_one_b;
  bool sequence_parallel = true;
  Offload offload = Offload::none;
  double chips() const { return tp * pp * dp * fsdp * cp; }
  double data_parallel() const { return dp * fsdp; }
};

// How the layers fall on the pipeline stages: the middle stages hold the same count and the first
// and last take what is left (Megatron-LM's --decoder-first/last-pipeline-num-layers), so the
// largest stage prices the step. With virtual stages the same rule splits pp·v chunks.
struct StageSplit {
  double first = 0, middle = 0, last = 0;  // layers per device
  double chunks_first = 0, chunk_middle = 0, chunks_last = 0;  // per chunk, interleaved
  bool ok = true;
};
StageSplit split_layers(double layers, double pp, double virtual_stages);

// Memory parts per chip, in the order the meter stacks them.
enum class Part : std::uint8_t {
  params, grads, optimizer, master, activations, logits, fsdp_buffers, workspace, reserve
};
inline constexpr int kParts = 9;
const char* part_id(Part p);      // "weights", "grads", … as the outputs name them
const char* part_label(Part p);   // for people
const char* part_source(Part p);  // where its rule comes from

struct StepMemory {
  std::array<double, kParts> parts{};
  double total = 0;
  double host_bytes = 0;        // optimizer state kept in host memory (offload) or paged out
  double fit_bytes = 0;         // what must fit: all but the allocator's reserve, which it gives up under pressure
  double stage = 0;             // 0-based index of the stage whose memory is largest
  double stage_layers = 0;      // its layers
  double in_flight = 0;         // micro-batches whose activations it holds at the peak
  double tokens_per_micro_batch = 0;  // per replica
  double micro_batches = 1;     // gradient-accumulation steps per replica
  Part largest = Part::params;
  // The factors the parts are built from, for the derivation.
  double stage_params = 0;      // parameters one chip of the stage holds before data-parallel sharding
  double shard_params = 1, shard_grads = 1, shard_optimizer = 1;  // data-parallel shards of each
  double copies = 1;            // DualPipe keeps two stages per device
  double chip_tokens = 0;       // tokens of one micro-batch on one chip (÷ cp)
  double saved_per_token = 0;   // activation elements saved per token per layer on one chip
  double recompute_per_token = 0;  // full remat: the recomputed layer's elements per token
  double gathered_params = 0, gathered_grads = 0;  // FSDP: weights held gathered, gradients unsharded
  double gather_bytes = 2, reduce_bytes = 2;       // their element sizes
};

struct StepTime {
  double step_s = 0, compute_s = 0, bubble_s = 0, exposed_dp_s = 0, offload_s = 0;
  double t_fwd_mb = 0, t_bwd_mb = 0;     // one micro-batch's passes on the largest stage
  double math_fwd_mb = 0, math_bwd_mb = 0;
  double tp_s = 0, cp_s = 0, ep_s = 0, pp_s = 0, gather_s = 0, dp_s = 0, dcn_s = 0;  // per step
  double bubble_fraction = 0;
  double flops_6pd = 0, flops_attention = 0, flops_hardware = 0;  // per step, whole job
  double mfu_6pd = 0, mfu_attention = 0;  // at this step time
  double slowest_comm_s = 0;              // the largest collective term per step
  double flops_per_s = 0;                 // the chip's rate the MFUs are measured against
  int dominant = 0;                       // Term
};

enum class Term : int { compute, data_parallel, tensor_parallel, context_parallel, expert_parallel, pipeline_send, pipeline_bubble };

enum class Reject : std::uint8_t {
  none, tp_heads, tp_domain, pp_layers, cp_sequence, ep_experts, ep_ranks, batch, schedule,
  memory, bubble, comms, model_parallel_beyond_pod, offload_link
};
inline constexpr int kRejects = 14;
const char* reject_id(Reject r);
// what a rejection means, as a clause after "because" ("the pipeline bubble is above the limit");
// a GPU's tensor parallelism is held to its NVLink domain, a TPU's to two axes of its torus
const char* reject_title(Reject r, bool gpu = false);

struct StepEval {
  StepLayout layout;
  StepMemory memory;
  StepTime time;
  Reject reason = Reject::none;
};

// Structural checks that need no pricing (divisibility, topology, schedule).
Reject structural_reject(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l);
StepMemory step_memory(const StepModel& m, const StepSettings& s, const StepLayout& l);
StepTime step_time(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l,
                   const StepMemory& mem);
// All of it, and the first reason the layout would be refused (none when it fits and runs). A
// structural refusal is not priced; one refused for memory is not timed.
StepEval evaluate_step(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l);

// Micro-batches whose activations stage `stage` (0-based) holds at its peak under a schedule, in
// units of one micro-batch through all of that stage's layers.
double in_flight(Schedule schedule, double pp, double v, double micro_batches, double stage);
// [tokens, D]-sized tensors a layer saves per token under a policy, at their true widths (in units
// of D; the book's count for its own policies).
double saved_tensors_per_layer(const StepModel& m, Remat remat);
// Bubble time as a multiple of one micro-batch's forward + backward on the largest stage.
double bubble_units(Schedule schedule, double pp, double v);

}  // namespace scalelab
