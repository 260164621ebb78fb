// `finetune` (ch 4–6 applied to one device): can this device train this model? Full
// fine-tuning, LoRA, QLoRA or pre-training from scratch: the bytes of weights, adapters,
// gradients, optimizer state and activations against the device's usable memory; the FLOPs of
// a token budget and the time they take at an MFU; and the first change that would make it fit.
#include <algorithm>
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/local_device.hpp"
#include "models/model_math.hpp"
#include "models/training_math.hpp"

namespace scalelab {
namespace {

// finetune's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"method", "", "method", "what is trained: full, lora, qlora or pretrain", false},
    {"params", "params", "parameters", "parameters of the model, all experts counted", false},
    {"params_active", "params", "active parameters", "parameters one token passes through", false},
    {"adapter_params", "params", "adapter parameters", "LoRA parameters beside the frozen weights (0 without adapters)", false},
    {"trainable_params", "params", "trained parameters", "parameters that get gradients and optimizer state", false},
    {"bytes_per_trainable_param", "bytes", "bytes per trained parameter", "weight, gradient, fp32 master copy and both Adam moments", false},
    {"weight_bits", "bits", "bits per stored weight", "16 (bf16), or under QLoRA the format's effective bits per projection weight, scales included", false},
    {"weights_bytes", "bytes", "weights", "bytes of the model's own weights (bf16, or the QLoRA format for the projections)", false},
    {"adapter_bytes", "bytes", "adapters", "bytes of the LoRA adapter weights (bf16)", false},
    {"grads_bytes", "bytes", "gradients", "bytes of the trained parameters' gradients (bf16)", false},
    {"master_bytes", "bytes", "fp32 master weights", "bytes of the fp32 copy of the trained parameters", false},
    {"optimizer_bytes", "bytes", "optimizer state", "bytes of both Adam moments of the trained parameters", false},
    {"activations_bytes", "bytes", "activations", "bytes the forward pass keeps for the backward pass", false},
    {"logits_bytes", "bytes", "logits", "bytes of the fp32 logits the loss is computed from (and their gradient, accounting practice)", false},
    {"allocator_reserve_bytes", "bytes", "allocator reserve", "memory the caching allocator holds unused (accounting practice, GPUs)", false},
    {"paged_bytes", "bytes", "paged to host", "optimizer state a paged optimizer moved to host memory (0 unless it had to)", false},
    {"tensor_bytes", "bytes", "tensors", "weights, adapters, gradients, optimizer state, activations and logits on the device: what torch.cuda.max_memory_allocated reports", false},
    {"overhead_bytes", "bytes", "runtime overhead", "CUDA context, library workspaces and allocator slack", false},
    {"needed_bytes", "bytes", "memory needed", "every term above added up", false},
    {"usable_bytes", "bytes", "usable memory", "device memory times the usable share", false},
    {"margin_bytes", "bytes", "memory margin", "usable memory minus memory needed: negative when it does not fit", false},
    {"free_bytes", "bytes", "free memory", "memory left over when it fits (0 when it does not)", false},
    {"shortfall_bytes", "bytes", "shortfall", "memory missing when it does not fit (0 when it fits)", false},
    {"fits", "", "fits", "whether the training state, activations and overhead fit in usable memory", false},
    {"largest_memory_term", "", "largest memory term", "weights, adapters, gradients, optimizer, activations or overhead", false},
    {"limit", "", "binding limit", "memory when it does not fit, else compute (the time is FLOPs over FLOP/s)", false},
    {"max_micro_batch", "sequences", "largest micro-batch that fits", "sequences per step that still fit (null when not even one does)", true},
    {"micro_steps", "count", "forward-backward passes", "passes of one micro-batch needed for the token budget", false},
    {"global_batch_sequences", "sequences", "sequences per optimizer step", "micro-batch × gradient-accumulation steps", false},
    {"optimizer_steps", "count", "optimizer steps", "optimizer steps for the token budget", false},
    {"accounting", "", "accounting", "book (the book's rules) or practice (as frameworks hold memory)", false},
    {"total_flops", "FLOPs", "training FLOPs", "FLOPs of the whole token budget", false},
    {"compute_dtype", "", "matmul arithmetic format", "the number format whose FLOP/s rate the matmuls run at", false},
    {"flops_per_s", "FLOP/s", "peak arithmetic rate", "the device's FLOP/s at that dtype", false},
    {"mfu", "ratio", "MFU", "share of the peak rate the run achieves", false},
    {"t_s", "s", "training time", "training FLOPs over the achieved FLOP/s", false},
    {"hours", "h", "training time in hours", "the training time in hours", false},
    {"days", "days", "time to train", "the training time in days (under a day, in its own unit)", false},
    {"tokens_per_s", "tokens/s", "tokens per second", "tokens trained per second at this MFU", false},
    {"expected_tokens_per_s_low", "tokens/s", "expected tokens per second, low", "tokens per second at the device's peak (MFU 1) times the low end of the share published fine-tunes on this kind of GPU reached (null where no runs calibrate it)", true},
    {"expected_tokens_per_s_high", "tokens/s", "expected tokens per second, high", "tokens per second at the device's peak times the high end of that share (null where no runs calibrate it)", true},
    {"expected_t_s_low", "s", "expected training time, short", "the time at the device's peak over the high end of the share published fine-tunes reached (null where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected training time, long", "the time at the device's peak over the low end of that share (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published fine-tunes the range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the peak, low", "the low end of the share of the device's peak published fine-tunes reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the peak, high", "the high end of that share (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the device's kind and the sequence length lie within what the published fine-tunes took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the device's kind or the sequence length where they lie outside what the published fine-tunes took (null when none does, or where no runs calibrate it)", true},
    {"measured_share_of_bound", "ratio", "your share of the peak", "measured_tokens_per_s over the tokens per second at the device's peak: the MFU your run reached (null without a measurement)", true},
    {"achieved_flops_per_s", "FLOP/s", "FLOP/s you reached", "the training FLOPs per token times measured_tokens_per_s (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "how many published fine-tunes reached a smaller share of the peak than your run (null without a measurement or a band)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing your run's share among the published fine-tunes' (null without a measurement or a band)", true},
    {"suggestion_kind", "", "suggestion kind", "what the suggested change is: checkpointing, micro_batch, method, combined, more_memory or none", false},
    {"suggestion", "", "suggestion", "the first change that would make it fit, in words", false},
    {"suggested_method", "", "suggested method", "a lighter method that fits (null if not part of the suggestion)", true},
    {"suggested_checkpointing", "", "suggested checkpointing", "true when turning checkpointing on is part of the suggestion (else null)", true},
    {"suggested_micro_batch", "sequences", "suggested micro-batch", "a micro-batch that fits (null if not part of the suggestion)", true},
};
// clang-format on

// Bytes per value of what training keeps (mixed precision, as in training.md: bf16 weights and
// activations, fp32 Adam moments; the fp32 master copy is the mixed-precision recipe of
// Micikevicius et al., "Mixed Precision Training", ICLR 2018).
constexpr double kBf16Bytes = 2, kFp32Bytes = 4;
// bitsandbytes 8-bit Adam (Dettmers et al., "8-bit Optimizers via Block-wise Quantization",
// ICLR 2022): each moment is 8 bits plus one fp32 absmax per block of 2048 values.
constexpr double kAdam8bitMomentBytes = 1 + 4.0 / 2048;
// The book's rough count of [tokens, D]-sized tensors one layer saves without checkpointing
// (transformers.md, "Gradient checkpointing": 2 · 20 · B · T · D · L bytes in bf16).
constexpr double kSavedTensorsPerLayer = 20;
constexpr double kGiB = 1073741824.0;

enum class Method { full, lora, qlora, pretrain };

Method parse_method(const std::string& s) {
  if (s == "full") return Method::full;
  if (s == "qlora") return Method::qlora;
  if (s == "pretrain") return Method::pretrain;
  return Method::lora;
}

std::string method_name(Method m) {
  switch (m) {
    case Method::full: return "full";
    case Method::lora: return "lora";
    case Method::qlora: return "qlora";
    case Method::pretrain: return "pretrain";
  }
  return "lora";
}

std::string method_title(Method m) {
  switch (m) {
    case Method::full: return "full fine-tuning";
    case Method::lora: return "LoRA";
    case Method::qlora: return "QLoRA";
    case Method::pretrain: return "pre-training";
  }
  return "LoRA";
}

bool uses_adapters(Method m) { return m == Method::lora || m == Method::qlora; }

// One configuration: what the memory and the suggestion vary.
struct Setup {
  Method method = Method::lora;
  bool checkpointing = true;
  double micro_batch = 1;
};

// PyTorch's caching allocator on a GPU holds on average 15 % of its reserved memory unused
// (GMLake, https://arxiv.org/abs/2401.08156); the training-step model's share (training_math).
constexpr double kAllocatorShare = 0.15;

// Everything read once from the arguments.
struct Inputs {
  const Model* model = nullptr;
  ParamCounts counts;
  double rank = 16, seq = 2048, tokens = 0, mfu = 0.4, overhead = 0, usable = 0;
  std::string targets, quant_format, quant_name;
  double quant_bits = 4;
  bool method_is_qlora = false;
  double moment_bytes = kFp32Bytes;
  bool paged = false;         // bitsandbytes' paged optimizers: moments leave the device when it runs short
  bool practice = false;      // accounting practice: tensors at their true widths, fp32 logits' gradient, reserve
  double lora_dropout = 0;
  double accumulation = 1;
  bool gpu = false;
  bool qlora_runs = true;  // some runtime trains adapters over quant_format on this chip
  MatmulRate rate;
};

// LoRA adds A [d_in, r] and B [r, d_out] beside each targeted matrix: r (d_in + d_out) values.
// Per layer: q and o are [D, N H], k and v [D, K H], each MLP matrix [D, F] (per expert for MoE).
struct Adapters {
  Expr total = 0;
  double active = 0;
};

Adapters adapter_params(const Model& m, const std::string& targets, double rank, const Steps& log) {
  Expr r = log.sym("r", rank), D = log.sym("D", m.D), L = log.sym("L", m.L);
  Expr NH = log.sym("N H", m.N * m.H), KH = log.sym("K H", m.K * m.H);
  Expr attention = targets == "qv" ? (D + NH) + (D + KH) : 2 * (D + NH) + 2 * (D + KH);
  double mats = mlp_matrices(m);
  if (targets != "attention_mlp") {
    Expr total = log.step("Adapter parameters, r (d_in + d_out) per targeted matrix", "P_{LoRA}", L * r * attention,
                          "params");
    return {total, total.value()};
  }
  if (!m.is_moe()) {
    Expr total = log.step("Adapter parameters, r (d_in + d_out) per targeted matrix", "P_{LoRA}",
                          L * r * (attention + mats * (D + log.sym("F", m.F))), "params");
    return {total, total.value()};
  }
  Expr L_moe = log.sym("L_{MoE}", m.L - m.dense_layers), L_dense = log.sym("L_{dense}", m.dense_layers);
  Expr per_expert = mats * r * (D + log.sym("F_{exp}", m.F_expert));
  Expr dense_mlp = L_dense * mats * r * (D + log.sym("F", m.F));
  Expr total = log.step("Adapter parameters, r (d_in + d_out) per targeted matrix, every expert", "P_{LoRA}",
                        L * r * attention + dense_mlp + L_moe * log.sym("E + E_{shared}", m.E + m.shared_experts) * per_expert,
                        "params");
  double active = (L * r * attention + dense_mlp).value() +
                  (m.L - m.dense_layers) * (m.k + m.shared_experts) * per_expert.value();
  return {total, active};
}

struct Footprint {
  double adapters = 0, adapters_active = 0, trainable = 0, bytes_per_trainable = 0;
  double weights = 0, adapter_bytes = 0, grads = 0, master = 0, optimizer = 0;
  double activations = 0, logits = 0, reserve = 0, paged = 0, needed = 0, margin = 0;
  double per_sequence = 0;  // activation and logit bytes one more sequence of the micro-batch adds
  bool fits() const { return margin >= 0; }
};

Expr frozen_weight_bytes(const Inputs& in, Method method, const Steps& log) {
  const ParamCounts& c = in.counts;
  if (method != Method::qlora) {
    return log.step("Weights (bf16)", "\\text{bytes}_W", log.sym("P", c.total()) * log.sym("b_w", kBf16Bytes), "bytes");
  }
  Expr linear = log.sym("P_{lin}", c.attention + c.mlp), rest = log.sym("P_{emb+norm}", c.embedding + c.norm);
  return log.step("Weights (projections in " + in.quant_name + ", embeddings and norms in bf16)", "\\text{bytes}_W",
                  linear * log.sym("b_q", in.quant_bits) / 8 + rest * log.sym("b_w", kBf16Bytes), "bytes");
}

// The inputs of the LoRA matrices a target set adapts, in elements per token per layer: under
// dropout each keeps its dropped-out input (and a one-byte mask, half a bf16 element) for backward.
double adapted_inputs(const Model& m, const std::string& targets) {
  double NH = m.N * m.H, D = m.D;
  if (targets == "qv") return 2 * D;
  double attention = 3 * D + NH;  // q, k, v read the layer's input; o reads attention's output
  if (targets == "attention") return attention;
  return attention + (m.gated ? 2 * D : D) + (m.is_moe() ? (m.k + m.shared_experts) * m.F_expert : m.F);
}

Expr activation_bytes(const Inputs& in, const Setup& s, const Steps& log) {
  const Model& m = *in.model;
  Expr b_a = log.sym("b_a", kBf16Bytes), tokens = log.sym("B", s.micro_batch) * log.sym("T", in.seq);
  Expr D = log.sym("D", m.D), L = log.sym("L", m.L), c = Expr(kSavedTensorsPerLayer);
  if (in.practice) {
    // each tensor at its true width (training_step's rule), with LoRA's dropped-out inputs
    StepModel sm = step_model(m, in.seq);
    double per_layer = saved_tensors_per_layer(sm, Remat::none) * m.D;
    double lora = uses_adapters(s.method) && in.lora_dropout > 0 ? 1.5 * adapted_inputs(m, in.targets) : 0;
    Expr w = log.sym("w", per_layer), w_lora = log.sym("w_{LoRA}", lora);
    if (!s.checkpointing) {
      return log.step("Saved activations (each tensor at its width, w elements a token per layer)", "A",
                      b_a * tokens * (w + w_lora) * L, "bytes");
    }
    return log.step("Saved activations (each layer's input, and one layer recomputed in full)", "A",
                    b_a * tokens * (D * L + w + w_lora), "bytes");
  }
  if (!s.checkpointing) {
    return log.step("Saved activations (20 [B T, D] tensors per layer)", "A", c * b_a * tokens * D * L, "bytes");
  }
  return log.step("Saved activations (each layer's input, and one layer recomputed in full)", "A",
                  b_a * tokens * D * (L + c), "bytes");
}

Footprint footprint(const Inputs& in, const Setup& s, const Steps& log) {
  Footprint f;
  bool lora = uses_adapters(s.method);
  Expr P = log.sym("P", in.counts.total());
  Expr trainable = P;
  if (lora) {
    Adapters a = adapter_params(*in.model, in.targets, in.rank, log);
    f.adapters_active = a.active;
    trainable = a.total;
  }
  f.trainable = trainable.value();
  f.adapters = lora ? f.trainable : 0;
  Expr b_w = log.sym("b_w", kBf16Bytes), b_g = log.sym("b_g", kBf16Bytes), b_master = log.sym("b_{master}", kFp32Bytes);
  Expr b_opt = log.sym("b_m", in.moment_bytes) + log.sym("b_v", in.moment_bytes);
  f.bytes_per_trainable = log.step("Bytes per trained parameter (weight, gradient, fp32 master, two Adam moments)",
                                   "b_{train}", b_w + b_g + b_master + b_opt, "bytes").value();
  f.weights = frozen_weight_bytes(in, s.method, log).value();
  Expr N = log.sym(lora ? StepText("P_{LoRA}") : StepText("P"), f.trainable);
  if (lora) f.adapter_bytes = log.step("Adapter weights (bf16)", "", N * b_w, "bytes").value();
  f.grads = log.step("Gradients (bf16)", "", N * b_g, "bytes").value();
  f.master = log.step("fp32 master weights", "", N * b_master, "bytes").value();
  f.optimizer = log.step("Optimizer state (Adam m and v)", "", N * b_opt, "bytes").value();
  f.activations = activation_bytes(in, s, log).value();
  Expr tokens = log.sym("B", s.micro_batch) * log.sym("T", in.seq);
  f.logits = in.practice ? log.step("fp32 logits and their gradient", "", tokens * log.sym("V", in.model->V) * (2 * kFp32Bytes),
                                    "bytes").value()
                         : log.step("Logits for the loss (fp32)", "", tokens * log.sym("V", in.model->V) * kFp32Bytes,
                                    "bytes").value();
  f.per_sequence = (f.activations + f.logits) / s.micro_batch;
  Expr parts = log.sym("\\text{bytes}_W", f.weights);
  if (lora) parts = parts + log.sym("\\text{adapters}", f.adapter_bytes);
  parts = parts + log.sym("\\text{grads}", f.grads) + log.sym("\\text{master}", f.master) +
          log.sym("\\text{opt}", f.optimizer) + log.sym("A", f.activations) + log.sym("\\text{logits}", f.logits) +
          log.sym("\\text{overhead}", in.overhead);
  if (in.practice && in.gpu) {
    Expr share = log.sym("f_{alloc}", kAllocatorShare);
    f.reserve = log.step("Allocator reserve (a share f of reserved memory held unused)", "\\text{reserve}",
                         log.sym("M_{tensors}", parts.value()) * share / (1 - share), "bytes").value();
    parts = parts + log.sym("\\text{reserve}", f.reserve);
  }
  Expr needed = log.step("Memory needed", "\\text{needed}", parts, "bytes");
  f.needed = needed.value();
  // It fits when everything but the allocator's reserve does: under pressure the allocator frees
  // its cached blocks and retries before it gives up (the reserve is what it holds on average).
  double hard = f.needed - f.reserve;
  if (in.paged && hard > in.usable) {
    // paged optimizer states move to host memory as the device runs short
    f.paged = log.step("Optimizer state paged out to host memory", "M_{paged}",
                       min(log.sym("\\text{opt}", f.optimizer),
                           log.sym("\\text{needed} - \\text{reserve}", hard) - log.sym("M", in.usable)),
                       "bytes").value();
    f.needed -= f.paged;
    hard -= f.paged;
  }
  f.margin = in.usable - hard;
  return f;
}

// The largest micro-batch whose activations still fit beside everything else (0: not even one).
double max_micro_batch(const Inputs& in, const Footprint& f, double micro_batch) {
  double fixed = f.needed - f.reserve - f.per_sequence * micro_batch;
  return std::max(0.0, std::floor((in.usable - fixed) / f.per_sequence));
}

struct Suggestion {
  std::string kind = "none", text;
  std::optional<std::string> method;
  std::optional<bool> checkpointing;
  std::optional<double> micro_batch;
};

std::string gb(double bytes) { return format_quantity(bytes, "bytes"); }

// The lighter methods a suggestion may offer; QLoRA only where some runtime trains adapters over
// frozen weights in its format on this chip (data/formats.json runs_on: NF4 is bitsandbytes',
// NVIDIA GPUs only; MLX's formats on a Mac; none on a TPU).
std::vector<Method> lighter_methods(Method m, bool qlora_runs) {
  if (m == Method::full) return qlora_runs ? std::vector<Method>{Method::lora, Method::qlora} : std::vector<Method>{Method::lora};
  if (m == Method::lora && qlora_runs) return {Method::qlora};
  return {};
}

// Single changes first, in the order that changes the result least: checkpointing (same
// numbers, more compute), a smaller micro-batch (same updates with gradient accumulation), then
// a lighter method; then all of them together; else more memory.
Suggestion suggest_fit(const Inputs& in, const Setup& s, const Footprint& f) {
  Suggestion out;
  auto fits = [&](const Setup& t) { return footprint(in, t, Steps()).fits(); };
  if (!s.checkpointing && fits({s.method, true, s.micro_batch})) {
    out.kind = "checkpointing";
    out.checkpointing = true;
    out.text = "Turn activation checkpointing on: keeping only each layer's input (and recomputing one layer at a "
               "time) makes it fit, for about a third more compute.";
    return out;
  }
  double best = max_micro_batch(in, f, s.micro_batch);
  if (s.micro_batch > 1 && best >= 1) {
    out.kind = "micro_batch";
    out.micro_batch = best;
    out.text = "A smaller micro-batch fits: " + plain(best) + " sequences per step (accumulate gradients over "
               "several steps to keep the same batch).";
    return out;
  }
  for (Method m : lighter_methods(s.method, in.qlora_runs)) {
    if (fits({m, s.checkpointing, s.micro_batch})) {
      out.kind = "method";
      out.method = method_name(m);
      out.text = method_title(m) + " instead of " + method_title(s.method) + " fits: " +
                 (m == Method::qlora ? "the frozen weights stored in " + in.quant_name + " take about a quarter "
                                       "of their bf16 bytes."
                                     : "only the small adapters carry gradients and optimizer state.");
      return out;
    }
  }
  std::vector<Method> lighter = lighter_methods(s.method, in.qlora_runs);
  Setup all{lighter.empty() ? s.method : lighter.back(), true, 1};
  Footprint lightest = footprint(in, all, Steps());
  if (lightest.fits() && (all.method != s.method || all.checkpointing != s.checkpointing || s.micro_batch > 1)) {
    out.kind = "combined";
    out.method = method_name(all.method);
    out.checkpointing = true;
    out.micro_batch = 1;
    out.text = "No single change fits; " + method_title(all.method) + " with checkpointing on and one sequence per "
               "micro-batch does (" + gb(lightest.needed) + " of " + gb(in.usable) + ").";
    return out;
  }
  out.kind = "more_memory";
  out.text = "Even " + method_title(all.method) + " with checkpointing and one sequence per micro-batch needs " +
             gb(lightest.needed) + ", more than the " + gb(in.usable) + " usable here: pick a smaller model, or a device "
             "with more memory (or the model sharded over several).";
  return out;
}

Suggestion suggest_when_fits(const Inputs& in, const Setup& s, const Footprint& f) {
  Suggestion out;
  double best = max_micro_batch(in, f, s.micro_batch);
  out.text = "It fits with " + gb(f.margin) + " to spare; up to " + grouped(best) + " sequences per micro-batch would "
             "fit, which usually raises the achieved MFU.";
  return out;
}

struct Times {
  double flops = 0, t_s = 0, tokens_per_s = 0;
};

// FLOPs of the token budget: the forward pass and the backward pass's activation gradients run
// through every weight (2 P T each); only trained weights get weight gradients (2 P_train T);
// checkpointing repeats the forward pass (2 P T): 6 P T for full training, 8 P T with
// checkpointing (transformers.md), and about 4 P T for LoRA.
Times time_steps(const Inputs& in, const Setup& s, const Footprint& f, Result& r) {
  bool lora = uses_adapters(s.method);
  double active = in.counts.active() + (lora ? f.adapters_active : 0);
  double trained = lora ? f.adapters_active : in.counts.active();
  Expr P = r.sym(lora ? StepText("(P_{act} + P_{LoRA})") : StepText("P_{act}"), active), T = r.sym("T_{train}", in.tokens);
  Expr P_train = r.sym(lora ? StepText("P_{LoRA}") : StepText("P_{act}"), trained);
  Expr passes = r.step("Forward and activation-gradient FLOPs", "F_{fb}", (Expr(2) + Expr(2)) * P * T, "FLOPs");
  Expr weight_grads = r.step("Weight-gradient FLOPs (trained weights only)", "F_{wg}", 2 * P_train * T, "FLOPs");
  Expr total = passes + weight_grads;
  if (s.checkpointing) {
    Expr recompute = r.step("Recomputed forward pass (checkpointing)", "F_{re}", 2 * P * T, "FLOPs");
    total = total + recompute;
  }
  Times t;
  t.flops = r.step("Training FLOPs", "F", total, "FLOPs").value();
  Expr rate = r.step("Achieved FLOP/s (" + in.rate.dtype + " peak times MFU)", "R",
                     r.sym("C", in.rate.flops_per_s) * r.sym("\\text{MFU}", in.mfu), "FLOP/s");
  Expr time = r.step("Training time", "t", r.sym("F", t.flops) / rate, "s");
  t.t_s = time.value();
  t.tokens_per_s = r.step("Tokens per second", "", T / time, "tokens/s").value();
  return t;
}

// The range published fine-tunes reach of the device's peak (their tokens/s over this calculator's
// at MFU 1), and, where the reader gives their own tokens/s, its share of that peak and its place
// among the published runs.
void output_expected(const Args& args, const Inputs& in, const Times& t, Result& r) {
  const ChipKind kind = args.chip().kind;
  const Band* band = t.t_s > 0 ? band_for("finetune", "tokens_per_s", kind) : nullptr;
  const double peak_rate = t.tokens_per_s / in.mfu, peak_s = t.t_s * in.mfu;  // at MFU 1
  out_expected(band, expected_output(kOutputs, "tokens_per_s", "tokens per second"), peak_rate, r);
  out_expected(band, expected_output(kOutputs, "t_s", "fine-tuning time"), peak_s, r);
  out_band(band, "finetune", kind, {{"sequence_length", in.seq}}, r, band_outputs(kOutputs));
  if (!args.given("measured_tokens_per_s")) {
    for (const char* name : {"measured_share_of_bound", "achieved_flops_per_s", "measured_runs_below", "measured_among"}) {
      r.out_null(name);
    }
    return;
  }
  Expr measured = r.sym("R_{measured}", args.num("measured_tokens_per_s"));
  Expr share = r.step("Share of the device's peak you measured (your MFU)", "s",
                      measured / r.sym("R_{peak}", peak_rate), "ratio");
  r.out("measured_share_of_bound", share);
  r.out("achieved_flops_per_s", r.step("FLOP/s your run reaches", "", r.sym("F", t.flops) / r.sym("T_{train}", in.tokens) * measured, "FLOP/s"));
  out_measured_among(band, share.value(), r);
  if (share.value() > 1) {
    r.warn("The measured tokens per second is faster than the device's peak allows: check that the model, method, "
           "sequence length and checkpointing match the run.");
  }
}

Inputs read_inputs(const Args& args, Method method, Result& r) {
  Inputs in;
  const Chip& chip = args.chip();
  in.model = &args.model();
  const Model& m = *in.model;
  if (m.is_mla()) {
    throw InputError("model", m.name + " uses latent (MLA) attention, whose projections this calculator does not "
                                       "model; choose a model with grouped-query attention");
  }
  in.counts = count_params(m);
  in.rank = args.num("lora_rank");
  in.targets = args.str("lora_targets");
  for (const char* p : {"lora_rank", "lora_targets"}) {
    if (!uses_adapters(method) && args.given(p)) {
      r.warn(std::string(p) + " is ignored: it applies to lora and qlora, and " + method_title(method) +
             " trains every weight.");
    }
  }
  if (uses_adapters(method) && in.rank > m.D) {
    throw InputError("lora_rank", "must be at most the model width D = " + plain(m.D) + " (a larger rank adds "
                                  "nothing a full update could not), got " + plain(in.rank));
  }
  in.method_is_qlora = method == Method::qlora;
  in.quant_format = args.str("quant_format");
  if (method != Method::qlora && args.given("quant_format")) {
    r.warn("quant_format is ignored: it applies to qlora; " + method_title(method) + " keeps the weights in bf16.");
  }
  const json& format = *find_format(in.quant_format);
  in.quant_bits = format["bits"].get<double>();
  in.quant_name = format.value("name", in.quant_format);
  in.seq = args.num("sequence_length");
  in.tokens = args.num("tokens");
  in.mfu = args.num("mfu");
  in.overhead = args.num("overhead_bytes");
  std::string optimizer = args.str("optimizer");
  in.moment_bytes = optimizer.ends_with("adam_8bit") ? kAdam8bitMomentBytes : kFp32Bytes;
  in.paged = optimizer.starts_with("paged_");
  in.practice = args.str("accounting") == "practice";
  in.lora_dropout = args.num("lora_dropout");
  in.accumulation = args.num("gradient_accumulation");
  in.gpu = chip.is_gpu();
  in.qlora_runs = format_runs_on(in.quant_format, chip, true);
  if (!in.qlora_runs && method != Method::qlora && !args.given("quant_format")) {
    // a QLoRA suggestion on a chip where the default format has no runtime (NF4 on a Mac) is priced
    // in the first 4-bit format a runtime there trains adapters over (MLX's on a Mac)
    for (const std::string& id : formats_running_on(weight_format_names(), chip, true)) {
      const json& other = *find_format(id);
      if (other["bits"].get<double>() > 4.5) continue;
      in.quant_format = id;
      in.quant_bits = other["bits"].get<double>();
      in.quant_name = other.value("name", id);
      in.qlora_runs = true;
      break;
    }
  }
  if (!in.qlora_runs && method == Method::qlora) {
    std::string runs;
    for (const std::string& id : formats_running_on(weight_format_names(), chip, true)) {
      runs += (runs.empty() ? "" : ", ") + find_format(id)->value("name", id);
    }
    r.warn("QLoRA trains adapters over frozen weights in " + in.quant_name + " through " + format_runtimes(in.quant_format) +
           ", which does not run on " + chip.name() + ": this is the memory such a format would take, not a recipe its "
           "libraries offer." + (runs.empty() ? std::string(" No runtime in the catalog does QLoRA on it.")
                                             : " Formats QLoRA runs with on it: " + runs + "."));
  }
  if (in.lora_dropout > 0 && !in.practice) {
    r.warn("lora_dropout counts its saved copies with accounting \"practice\" only; the book's count leaves them out.");
  }
  double capacity = chip.need(&Chip::hbm_bytes, "the training state must fit in the device's memory");
  in.usable = r.step("Usable device memory", "M",
                     r.sym("\\text{capacity}", capacity) * r.sym("\\text{share}", usable_share(args, chip)), "bytes")
                  .value();
  in.rate = sixteen_bit_rate(chip);
  return in;
}

void output_memory(const Inputs& in, const Footprint& f, Result& r) {
  r.out("params", in.counts.total());
  r.out("params_active", in.counts.active());
  r.out("adapter_params", f.adapters);
  r.out("trainable_params", f.trainable);
  r.out("bytes_per_trainable_param", f.bytes_per_trainable);
  r.out("weight_bits", in.method_is_qlora ? in.quant_bits : 16.0);
  r.out("weights_bytes", f.weights);
  r.out("adapter_bytes", f.adapter_bytes);
  r.out("grads_bytes", f.grads);
  r.out("master_bytes", f.master);
  r.out("optimizer_bytes", f.optimizer);
  r.out("activations_bytes", f.activations);
  r.out("logits_bytes", f.logits);
  r.out("allocator_reserve_bytes", f.reserve);
  r.out("paged_bytes", f.paged);
  r.out("tensor_bytes", f.needed + f.paged - f.reserve - in.overhead);
  r.out("overhead_bytes", in.overhead);
  r.out("needed_bytes", f.needed);
  r.out("usable_bytes", in.usable);
  r.out("margin_bytes", f.margin);
  r.out("free_bytes", f.fits() ? f.margin : 0);
  r.out("shortfall_bytes", f.fits() ? 0 : -f.margin);
  r.out("fits", f.fits());
}

// The largest of the memory terms, by id.
std::string largest_term(const Inputs& in, const Footprint& f) {
  std::vector<std::pair<std::string, double>> terms = {
      {"weights", f.weights},       {"adapters", f.adapter_bytes},       {"gradients", f.grads},
      {"optimizer", f.optimizer + f.master}, {"activations", f.activations + f.logits}, {"overhead", in.overhead}};
  return std::max_element(terms.begin(), terms.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

void compute(const Args& args, Result& r) {
  Setup s{parse_method(args.str("method")), args.flag("activation_checkpointing"), args.num("micro_batch")};
  Inputs in = read_inputs(args, s.method, r);
  Footprint f = footprint(in, s, r.log());
  Expr hard = r.sym(f.reserve > 0 ? StepText("\\text{needed} - \\text{reserve}") : StepText("\\text{needed}"),
                    f.needed - f.reserve);
  if (f.fits()) {
    r.step("Free memory", "", r.sym("M", in.usable) - hard, "bytes");
    if (f.needed > in.usable) {
      r.warn("Tight: it fits only if the allocator gives up most of its usual reserve (" + gb(f.reserve) +
             "); fragmentation can still run it out of memory.");
    }
  } else {
    r.step("Shortfall (does not fit)", "", hard - r.sym("M", in.usable), "bytes");
    r.warn("Does not fit: " + gb(f.needed) + " needed, " + gb(in.usable) + " usable on " + args.chip().name() +
           " (" + gb(-f.margin) + " short).");
  }
  Times t = time_steps(in, s, f, r);
  Suggestion sug = f.fits() ? suggest_when_fits(in, s, f) : suggest_fit(in, s, f);

  r.out("method", method_name(s.method));
  output_memory(in, f, r);
  r.out("largest_memory_term", largest_term(in, f));
  r.out("limit", f.fits() ? "compute" : "memory");
  double best = max_micro_batch(in, f, s.micro_batch);
  if (best >= 1) r.out("max_micro_batch", best);
  else r.out_null("max_micro_batch");
  r.out("micro_steps", std::ceil(in.tokens / (s.micro_batch * in.seq)));
  r.out("global_batch_sequences", s.micro_batch * in.accumulation);
  r.out("optimizer_steps", std::ceil(in.tokens / (s.micro_batch * in.accumulation * in.seq)));
  r.out("accounting", in.practice ? "practice" : "book");
  r.out("total_flops", t.flops);
  r.out("compute_dtype", in.rate.dtype);
  r.out("flops_per_s", in.rate.flops_per_s);
  r.out("mfu", in.mfu);
  r.out("t_s", t.t_s);
  r.out("hours", t.t_s / 3600);
  r.out("days", t.t_s / kSecondsPerDay);
  r.out("tokens_per_s", t.tokens_per_s);
  output_expected(args, in, t, r);
  r.out("suggestion_kind", sug.kind);
  r.out("suggestion", sug.text);
  if (sug.method) r.out("suggested_method", *sug.method);
  else r.out_null("suggested_method");
  if (sug.checkpointing) r.out("suggested_checkpointing", *sug.checkpointing);
  else r.out_null("suggested_checkpointing");
  out_opt(r, "suggested_micro_batch", sug.micro_batch);
}

std::vector<Param> finetune_params() {
  using namespace params;
  return {
      params::chip("rtx-4090"),
      chip_overrides(),
      params::model("llama3.1-8b"),
      model_overrides(),
      choice("method", {"full", "lora", "qlora", "pretrain"}, "lora",
             "what is trained: full (every weight, from a checkpoint), lora (low-rank adapters beside frozen bf16 "
             "weights), qlora (adapters beside frozen 4-bit weights) or pretrain (every weight, from scratch)",
             {"full fine-tune", "LoRA", "QLoRA", "pre-train from scratch"}),
      integer("lora_rank", "count", 1, 65536, 16, "rank r of each LoRA adapter (lora and qlora)", Scale::log),
      choice("lora_targets", {"attention_mlp", "attention", "qv"}, "attention_mlp",
             "matrices that get an adapter: every attention and MLP projection, the four attention projections, "
             "or only the query and value projections (the LoRA paper's choice)",
             {"attention and MLP", "attention (q, k, v, o)", "query and value"}),
      weight_format("quant_format", "format of the frozen weights under qlora (default nf4, the QLoRA paper's)", "nf4"),
      integer("tokens", "tokens", 1, 1e15, 1e8, "tokens trained (the token budget)"),
      integer("sequence_length", "tokens", 1, 1e7, 2048, "tokens per sequence"),
      integer("micro_batch", "sequences", 1, 1e6, 1, "sequences per forward and backward pass"),
      utilisation("mfu", 0.4, "model FLOPs utilisation of the device's 16-bit peak"),
      boolean("activation_checkpointing", true,
              "keep only each layer's input and recompute the rest in the backward pass"),
      choice("optimizer", {"adam", "adam_8bit", "paged_adam", "paged_adam_8bit"}, "adam",
             "optimizer state: adam (two fp32 moments, 8 bytes per trained parameter) or adam_8bit (bitsandbytes "
             "block-wise 8-bit moments, about 2 bytes); paged_ (bitsandbytes' paged optimizers, as QLoRA uses): "
             "the moments move to host memory when the device runs short",
             {"Adam, fp32 moments", "Adam, 8-bit moments", "paged Adam, fp32 moments", "paged Adam, 8-bit moments"}),
      choice("accounting", {"book", "practice"}, "book",
             "how memory is counted: the book's rough count of saved tensors and fp32 logits, or as frameworks "
             "hold it (each saved tensor at its width, LoRA's dropped-out inputs, the logits' fp32 gradient, "
             "the allocator's reserve on a GPU)",
             {"the book's rules", "as frameworks run it"}),
      number("lora_dropout", "ratio", 0, 0.99, 0,
             "dropout on the LoRA adapters' inputs (PEFT's lora_dropout; default 0): above 0 each adapted matrix "
             "keeps its dropped-out input for the backward pass (accounting practice)", Scale::linear),
      integer("gradient_accumulation", "count", 1, 1e6, 1,
              "micro-batches whose gradients are summed before each optimizer step (global batch = micro-batch × "
              "this, on one device)", Scale::log),
      number("overhead_bytes", "bytes", 0, 1e13, kGiB,
             "runtime overhead on the device beside the training state: CUDA context and library workspaces "
             "(about 0.3-0.5 GiB, as for local_inference) and allocator slack; default 1 GiB",
             Scale::linear),
      usable_memory_share_param("training"),
      number("measured_tokens_per_s", "tokens/s", 1e-3, 1e9, nullptr,
             "I measured: the tokens per second your fine-tune trained at; gives its share of the device's peak "
             "(your MFU) and its place among the published fine-tunes (default: none)", Scale::log),
  };
}

}  // namespace

Calculator make_finetune() {
  return {"finetune",
          "Fine-tuning and small pre-training on one device",
          {4, 5, 6},
          "Full fine-tuning, LoRA, QLoRA or pre-training on one device: weights, adapters, gradients, optimizer "
          "state and activations against usable memory (fits, or short by how much), the FLOPs and time of a "
          "token budget at an MFU, and the first change that would make it fit.",
          finetune_params(),
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
