// Numeric cores of the training calculators (api/training.md §2.3–2.5), free of JSON so that
// training_memory, training_comm, training_run and the layout search share one set of formulas.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "schema/args.hpp"
#include "catalog/catalog.hpp"
#include "models/model_math.hpp"
#include "models/training_step.hpp"

namespace scalelab {

// ---- memory (ch 4–6) ------------------------------------------------------------------

struct Degrees {
  double dp = 1, fsdp = 1, tp = 1, pp = 1, ep = 1;
  double product() const { return dp * fsdp * tp * pp * ep; }
};

struct MemoryInputs {
  const Model* model = nullptr;  // null: bare parameter count
  double params = 0, params_active = 0;
  double batch_tokens = 0, T = 0;
  double chips = 1;
  Degrees degrees;               // dp, fsdp, tp, pp (ep is separate: it reuses data-parallel ranks)
  double cp = 1, ep = 1;
  int zero = 0;                  // ZeRO stage across the dp replicas (3 has become fsdp)
  double weight_bytes = 2, grad_bytes = 0, optimizer_bytes = 8, master_bytes = 0, act_bytes = 2;
  std::string checkpointing = "none";
  double custom_checkpoints = 0;
  Remat remat = Remat::none;
  Accounting accounting = Accounting::book;
  double micro_batch = 0;        // sequences per micro-batch; 0: the whole replica batch
  Schedule schedule = Schedule::one_f_one_b;
  double virtual_stages = 1;
  bool sequence_parallel = true;
  Offload offload = Offload::none;
  double workspace_bytes = 0;    // practice, GPUs: CUDA context and library buffers

  StepLayout layout() const;
  StepSettings settings(const Chip& chip, double flops_per_s) const;
};

struct MemoryBreakdown {
  double bytes_per_param = 0;
  double params_bytes = 0, grads_bytes = 0, optimizer_bytes = 0, master_bytes = 0;
  double state_bytes = 0;
  std::optional<double> checkpoints_per_layer;
  double activations_bytes = 0;  // all chips at the peak (the book's A with its defaults)
  double total_bytes = 0;
  double bytes_per_chip = 0;
  std::optional<double> recompute_flops;
  StepMemory per_chip;           // each part on the largest stage's chip
};

MemoryBreakdown training_memory_math(const MemoryInputs& in, const Chip& chip);
// [tokens, D]-sized tensors saved per layer under a checkpointing policy; null when unknown.
std::optional<double> checkpoints_per_layer(const std::string& policy, const Model* m, double custom);

// Reads the memory inputs shared by training_memory and training_run (model or bare params,
// dtypes, policy, degrees, micro-batch, schedule, ZeRO, offload, accounting) and resolves chips
// and degrees (§2.4). Throws InputError. `searched`: training_run, whose layout search tries the
// micro-batch and ZeRO stage; there one that does not suit the run's own default layout only narrows
// the search (a warning says so) instead of being refused.
MemoryInputs read_memory_inputs(const Args& args, std::vector<std::string>& warnings, bool searched = false);

// The training step's view of a model at sequence length T (bare params: one layer of them).
StepModel step_model(const MemoryInputs& in);
StepModel step_model(const Model& m, double T);
// The chip's network for the step: NVLink domain and InfiniBand, or ICI torus, pod and DCN.
StepNetwork step_network(const Chip& chip, double chips);
// Names of the step's choices as the schema spells them.
Remat parse_remat(const std::string& policy);
Schedule parse_schedule(const std::string& s);
Offload parse_offload(const std::string& s);
const std::vector<std::string>& schedule_names();
const std::vector<std::string>& schedule_titles();
// Each memory part on one chip of the largest stage as a step of the derivation (its value is
// step_memory's), and the bytes per chip they add up to.
void memory_part_steps(const StepSettings& s, const StepLayout& l, double vocab, const StepMemory& mem, Result& r);

// Default framework workspace on a chip under practice accounting (bytes): CUDA context, cuBLAS
// and NCCL buffers on a GPU, none on a TPU or CPU.
double default_workspace_bytes(const Chip& chip);
// Chips when neither chips nor a degree sets them: the chip's pod, else one chip (a consumer GPU,
// a Mac, a measured CPU), with a warning that says so.
double default_chips(const Chip& chip, std::vector<std::string>& warnings);

// ---- communication (ch 5, 12) ---------------------------------------------------------

enum class Strategy { dp, fsdp, tp, fsdp_tp, pp, ep, dcn_dp, last_ = dcn_dp };
enum class Fabric { ici, nvlink, ib_fat_tree, dcn };

Strategy parse_strategy(const std::string& s);
Fabric parse_fabric(const std::string& s);
std::string strategy_name(Strategy s);
std::string strategy_title(Strategy s);  // for people: "data parallelism across pods over DCN"
const std::vector<std::string>& strategy_names();
const std::vector<std::string>& strategy_titles();
std::string fabric_name(Fabric f);

struct CommSetup {
  Strategy strategy = Strategy::fsdp;
  Fabric fabric = Fabric::ici;
  double C = 0, w = 2, a = 2;          // FLOP/s, weight and activation bytes
  double D = 0, F_w = 0, F_a = 0;      // layer width, moved and computed MLP widths
  double F_unit = 0;                   // F (dense) or F_expert (MoE): what critical_F reports
  double routed_k = 1, k_total = 1;    // routed experts per token; routed + shared
  double L = 1;
  double B = 0, N = 1;                 // global batch tokens, chips
  Degrees deg;
  bool at_optimum = false;             // fsdp_tp evaluated at the continuous optimum
  double axes_fsdp = 1, axes_tp = 1;
  bool exact_ring = false, sharp = false;
  double microbatches = 1;
  double ici_link = 0, nvlink = 0, ib = 0, dcn = 0, node_gpus = 0;
};

// One chip with no degree above 1: no collective runs, so no network is priced (training_comm,
// and training_run's recommended sharding).
inline bool one_chip(const CommSetup& s) { return s.N == 1 && s.deg.product() == 1; }

struct CommNumbers {
  double X = 1, Y = 1, Y_f = 1;
  double W_x = 0, W_tp = 0, W_pp = 0;
  double alpha = 0;          // collective intensity C / W of the fabric
  double ring = 1;
  double t_math = 0, t_comm = 0;
  double t_comm_fsdp = 0, t_comm_tp = 0;  // fsdp_tp's two terms
  std::optional<double> crit_per_chip;
  std::optional<double> dp_bytes_per_s, tp_bytes_per_s;
  std::optional<double> tp_limit, critical_F;
  std::optional<double> fsdp_opt, tp_opt, fsdp_pow2, tp_pow2;
  bool nvlink_stage_slower = false;
  double nvlink_stage_bytes_per_s = 0;
};

// Bandwidths and ring factors need `setup.deg` resolved (for fsdp_tp at the optimum, fsdp/tp
// are replaced by the continuous optimum before the times are computed).
CommNumbers analyse_comm(const CommSetup& setup);

double largest_pow2_at_most(double x);

// The training_comm strategy that prices a layout's degrees on a chip: pipelining when pp > 1;
// FSDP with TP as "fsdp" on a GPU (TP inside the node) or beside replicas, else "fsdp_tp"; else the
// one degree above 1. Empty on one chip (nothing to communicate).
std::optional<Strategy> comm_strategy_for(const Degrees& d, const Chip& chip);

}  // namespace scalelab
