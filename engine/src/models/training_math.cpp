#include "models/training_math.hpp"
#include "core/format_words.hpp"

#include <algorithm>
#include <cmath>

#include "core/enum_table.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "models/layer_times.hpp"

namespace scalelab {

// ---- memory ---------------------------------------------------------------------------

std::optional<double> checkpoints_per_layer(const std::string& policy, const Model* m, double custom) {
  if (policy == "none") return 20.0;
  if (policy == "block" || policy == "full") return 1.0;
  if (policy == "big_matmuls") return 7.0;
  if (policy == "selective") return std::nullopt;  // true widths: saved_tensors_per_layer
  if (policy == "custom") return custom;
  if (!m) return std::nullopt;  // mlp_outputs needs D and F
  return (m->D + (m->gated ? 2 : 1) * m->F) / m->D;
}

namespace {

constexpr double kGiB = 1073741824.0;
// PyTorch's caching allocator holds on average 15 % of its reserved memory unused in LLM training
// (GMLake, Guo et al., ASPLOS 2024, https://arxiv.org/abs/2401.08156: fragmentation reduced by
// 15 % on average, up to 33 %, across eight LLMs on A100-80GB).
constexpr double kAllocatorShare = 0.15;

constexpr EnumTable<Schedule, kSchedules> kScheduleNames({{
    {Schedule::gpipe, "gpipe", "GPipe: every forward, then every backward"},
    {Schedule::one_f_one_b, "1f1b", "1F1B: one forward, one backward"},
    {Schedule::interleaved, "interleaved", "interleaved 1F1B (virtual stages)"},
    {Schedule::zero_bubble, "zero_bubble", "zero-bubble (ZB-H1): weight gradients fill the bubble"},
    {Schedule::dualpipe, "dualpipe", "DualPipe: both ends at once (DeepSeek-V3)"},
}});
static_assert(kScheduleNames.in_enum_order(), "one row per Schedule, in enum order");

}  // namespace

Remat parse_remat(const std::string& policy) {
  if (policy == "block") return Remat::block;
  if (policy == "big_matmuls") return Remat::big_matmuls;
  if (policy == "mlp_outputs") return Remat::mlp_outputs;
  if (policy == "custom") return Remat::custom;
  if (policy == "selective") return Remat::selective;
  if (policy == "full") return Remat::full;
  return Remat::none;
}

Schedule parse_schedule(const std::string& s) { return kScheduleNames.parse(s, "schedule"); }

const std::vector<std::string>& schedule_names() {
  static const std::vector<std::string> names = kScheduleNames.names();
  return names;
}

const std::vector<std::string>& schedule_titles() {
  static const std::vector<std::string> titles = kScheduleNames.titles();
  return titles;
}

Offload parse_offload(const std::string& s) {
  if (s == "host") return Offload::host;
  if (s == "paged") return Offload::paged;
  return Offload::none;
}

double default_workspace_bytes(const Chip& chip) { return chip.is_gpu() ? kGiB : 0; }

double default_chips(const Chip& chip, std::vector<std::string>& warnings) {
  if (chip.pod_chips) return *chip.pod_chips;
  warnings.push_back(chip.name() + " has no pod size: one chip is assumed (give the number of chips for more).");
  return 1;
}

StepLayout MemoryInputs::layout() const {
  StepLayout l;
  l.tp = degrees.tp;
  l.pp = degrees.pp;
  l.dp = degrees.dp;
  l.fsdp = degrees.fsdp;
  l.cp = cp;
  l.ep = ep;
  l.zero = zero;
  l.micro_batch = micro_batch;
  l.virtual_stages = virtual_stages;
  l.remat = remat;
  l.schedule = schedule;
  l.sequence_parallel = sequence_parallel;
  l.offload = offload;
  return l;
}

StepSettings MemoryInputs::settings(const Chip& chip, double flops_per_s) const {
  StepSettings s;
  s.accounting = accounting;
  s.batch_tokens = batch_tokens;
  s.seq_len = T;
  s.weight_bytes = weight_bytes;
  s.grad_bytes = grad_bytes;
  s.optimizer_bytes = optimizer_bytes;
  s.master_bytes = master_bytes;
  s.act_bytes = act_bytes;
  s.flops_per_s = flops_per_s;
  s.hbm_bytes = chip.usable_memory_bytes().value_or(0);
  s.gpu = chip.is_gpu();
  s.workspace_bytes = workspace_bytes;
  s.allocator_share = accounting == Accounting::practice && chip.is_gpu() ? kAllocatorShare : 0;
  return s;
}

StepModel step_model(const MemoryInputs& in) {
  if (!in.model) {  // bare parameters: the state alone, as one layer without activations
    StepModel s;
    s.book_count = checkpoints_per_layer(in.checkpointing, nullptr, in.custom_checkpoints).value_or(0);
    s.layers = 1;
    s.d_model = 0;
    s.layer_params = s.layer_active_params = s.params_total = s.params_active = in.params;
    return s;
  }
  StepModel s = step_model(*in.model, in.T);
  s.book_count = checkpoints_per_layer(in.checkpointing, in.model, in.custom_checkpoints).value_or(0);
  return s;
}

StepModel step_model(const Model& m, double T) {
  StepModel s;
  ParamCounts c = count_params(m);
  s.layers = m.L;
  s.d_model = m.D;
  s.vocab = m.V;
  s.heads = m.N;
  s.kv_heads = m.is_mla() ? m.N : m.K;  // MLA: its latent decompressed into N heads of k and v
  double h_qk = head_dim_qk(m), h_v = head_dim_v(m);
  s.q_width = m.N * h_qk;
  s.k_width = s.kv_heads * h_qk;
  s.v_width = s.kv_heads * h_v;
  s.attn_out_width = m.N * h_v;
  s.gated = m.gated;
  // An MoE layer computes (k + shared) experts of F_expert for each token and sends k copies of it
  // to its experts; averaged over the layers with the dense ones.
  double moe_layers = m.is_moe() ? m.L - m.dense_layers : 0;
  s.mlp_width = m.is_moe() ? (moe_layers * (m.k + m.shared_experts) * m.F_expert + m.dense_layers * m.F) / m.L : m.F;
  s.routed_inputs = m.is_moe() ? m.k * moe_layers / m.L : 0;
  s.experts = m.is_moe() ? m.E : 1;
  s.params_total = c.total();
  s.params_active = c.active();
  s.layer_params = (c.total() - c.embedding) / m.L;
  s.layer_active_params = (c.active() - c.embedding) / m.L;
  s.layer_expert_params = moe_layers * m.E * mlp_matrices(m) * m.D * m.F_expert / m.L;
  s.embed_params = m.D * m.V;
  s.head_params = m.tied_embeddings ? 0 : m.D * m.V;
  s.attn_flops_fwd_per_token_layer = 2 * T * m.N * (h_qk + h_v);
  // selective recomputes the matmuls it does not keep: k, o, and the MLP's up (gated) or down
  s.skipped_matmul_params = m.D * s.k_width + s.attn_out_width * m.D + m.D * s.mlp_width;
  return s;
}

namespace {

Expr part_step(Result& r, Part part, StepText title, const Expr& value) {
  std::string symbol = std::string("M_{\\text{") + part_id(part) + "}}";
  return r.step(title, StepText(symbol), value, "bytes");
}

}  // namespace

void memory_part_steps(const StepSettings& s, const StepLayout& l, double vocab, const StepMemory& mem, Result& r) {
  auto sym = [&](std::string_view tex, double v) { return r.sym(StepText(tex), v); };
  Expr P = sym("P_{chip}", mem.stage_params * mem.copies);
  Expr total = part_step(r, Part::params, "Weights on one chip", P * sym("b_w", s.weight_bytes) / sym("S_w", mem.shard_params));
  total = total + part_step(r, Part::grads, "Gradients on one chip",
                            P * sym("b_g", s.grad_bytes) / sym("S_g", mem.shard_grads));
  if (l.offload == Offload::host) {
    r.step("Optimizer state and master weights in host memory (offloaded)", "M_{host}",
           P * (sym("b_{opt}", s.optimizer_bytes) + sym("b_{master}", s.master_bytes)) / sym("S_o", mem.shard_optimizer),
           "bytes");
  } else {
    total = total + part_step(r, Part::optimizer, "Optimizer state on one chip",
                              P * sym("b_{opt}", s.optimizer_bytes) / sym("S_o", mem.shard_optimizer));
    total = total + part_step(r, Part::master, "Master weights on one chip",
                              P * sym("b_{master}", s.master_bytes) / sym("S_o", mem.shard_optimizer));
  }
  if (mem.saved_per_token > 0) {
    Expr saved = sym("b_a", s.act_bytes) * sym("t_{chip}", mem.chip_tokens) * sym("w", mem.saved_per_token) *
                 sym("L_{stage}", mem.stage_layers) * sym("m_{flight}", mem.in_flight);
    if (mem.recompute_per_token > 0) {
      saved = saved + sym("b_a", s.act_bytes) * sym("t_{chip}", mem.chip_tokens) * sym("w_{layer}", mem.recompute_per_token);
    }
    total = total + part_step(r, Part::activations,
                              "Saved activations on one chip (w elements a token per layer, m micro-batches in flight)",
                              saved);
  }
  if (mem.parts[int(Part::logits)] > 0) {
    total = total + part_step(r, Part::logits, "fp32 logits and their gradient (last stage)",
                              sym("t_{chip}", mem.chip_tokens) * sym("V", vocab) / sym("t_p", l.tp) * 8);
  }
  if (mem.parts[int(Part::fsdp_buffers)] > 0) {
    total = total + part_step(r, Part::fsdp_buffers, "FSDP's gathered weights and unsharded gradients",
                              sym("P_{gathered}", mem.gathered_params) * sym("b_{gather}", mem.gather_bytes) +
                                  sym("P_{grad}", mem.gathered_grads) * sym("b_{reduce}", mem.reduce_bytes));
  }
  if (mem.parts[int(Part::workspace)] > 0) {
    total = total + part_step(r, Part::workspace, "Framework workspace", sym("M_{ws}", mem.parts[int(Part::workspace)]));
  }
  if (mem.parts[int(Part::reserve)] > 0) {
    Expr share = sym("f_{alloc}", s.allocator_share);
    total = total + part_step(r, Part::reserve, "Allocator reserve (a share f of reserved memory held unused)",
                              sym("M_{tensors}", total.value()) * share / (1 - share));
  }
  if (l.offload == Offload::paged && mem.host_bytes > 0) {
    r.step("Optimizer state paged out to host memory", "M_{paged}", sym("M_{paged}", mem.host_bytes), "bytes");
  }
  r.step("Bytes per chip", "M", l.offload == Offload::paged ? sym("M", mem.total) : total, "bytes");
}

StepNetwork step_network(const Chip& chip, double chips) {
  StepNetwork n;
  n.gpu = chip.is_gpu();
  n.pcie = chip.pcie_bytes_per_s.value_or(0);
  if (n.gpu) {
    n.node_gpus = chip.node_gpus.value_or(1);
    n.nvlink = chip.nvlink_bytes_per_s.value_or(0);
    n.ib = chip.ib_bytes_per_s.value_or(0);
    return n;
  }
  n.ici_link = chip.ici_link_bytes_per_s.value_or(0);
  std::vector<double> axes = chip.pod_shape();
  std::sort(axes.begin(), axes.end(), std::greater<>());
  n.torus_axes = std::max(1.0, double(axes.size()));
  for (size_t i = 0; i < axes.size() && i < 3; ++i) n.axes[i] = axes[i];
  n.longest_axis = axes.empty() ? chips : axes[0];
  if (axes.empty()) n.axes[0] = chips;
  if (chip.pod_chips && chips > *chip.pod_chips) {
    n.pod_chips = *chip.pod_chips;
    n.dcn = chip.dcn_bytes_per_s.value_or(0);
  }
  return n;
}

MemoryBreakdown training_memory_math(const MemoryInputs& in, const Chip& chip) {
  MemoryBreakdown b;
  b.bytes_per_param = in.weight_bytes + in.grad_bytes + in.optimizer_bytes + in.master_bytes;
  b.params_bytes = in.params * in.weight_bytes;
  b.grads_bytes = in.params * in.grad_bytes;
  b.optimizer_bytes = in.params * in.optimizer_bytes;
  b.master_bytes = in.params * in.master_bytes;
  b.state_bytes = in.params * b.bytes_per_param;
  b.checkpoints_per_layer = checkpoints_per_layer(in.checkpointing, in.model, in.custom_checkpoints);
  StepModel sm = step_model(in);
  bool true_widths = in.remat == Remat::selective || (in.accounting == Accounting::practice && in.remat == Remat::none);
  if (in.model && true_widths) b.checkpoints_per_layer = saved_tensors_per_layer(sm, in.remat);
  StepSettings settings = in.settings(chip, 0);
  b.per_chip = step_memory(sm, settings, in.layout());
  bool book_batch = in.accounting == Accounting::book && in.micro_batch <= 0 && in.degrees.pp == 1;
  if (in.model && b.checkpoints_per_layer && book_batch) {
    // the book's A: every token of the batch, all layers (api/training.md §2.4)
    b.activations_bytes =
        in.act_bytes * in.batch_tokens * in.model->D * in.model->L * *b.checkpoints_per_layer;
  } else if (in.model) {
    b.activations_bytes = b.per_chip.parts[int(Part::activations)] * in.chips;
  }
  b.total_bytes = b.state_bytes + b.activations_bytes;
  b.bytes_per_chip = b.per_chip.total;
  if (in.checkpointing == "none") {
    b.recompute_flops = 0.0;
  } else if (in.model && (in.checkpointing == "big_matmuls" || in.checkpointing == "block" ||
                          in.checkpointing == "full")) {
    const Model& m = *in.model;
    double attention = 2 * in.batch_tokens * in.T * m.N * (head_dim_qk(m) + head_dim_v(m)) * m.L;
    b.recompute_flops = in.checkpointing == "big_matmuls" ? attention
                                                          : 2 * in.params_active * in.batch_tokens + attention;
  } else if (in.model && in.checkpointing == "selective") {
    b.recompute_flops = 2 * sm.skipped_matmul_params * in.model->L * in.batch_tokens;
  }
  return b;
}

namespace {

double exact_quotient(double total, double divisor, const std::string& param, const std::string& what) {
  double q = total / divisor;
  if (q < 1 || std::floor(q) != q) {
    throw InputError(param, "must be a multiple of " + what + " (" + plain(divisor) + "), got " +
                                plain(total));
  }
  return q;
}

Degrees resolve_memory_degrees(const Args& args, double cp, double& chips, std::vector<std::string>& warnings) {
  Degrees d;
  d.dp = args.num_if("dp").value_or(1);
  d.tp = args.num_if("tp").value_or(1);
  d.pp = args.num_if("pp").value_or(1);
  bool any = args.given("dp") || args.given("fsdp") || args.given("tp") || args.given("pp") || args.given("cp");
  double rest = d.dp * d.tp * d.pp * cp;
  if (args.given("chips")) {
    chips = args.num("chips");
    if (args.given("fsdp")) {
      d.fsdp = args.num("fsdp");
      if (rest * d.fsdp != chips) {
        throw InputError("chips", "must equal the product of the data, FSDP, tensor, pipeline and context degrees, " + plain(rest * d.fsdp) + ", got " +
                                      plain(chips));
      }
    } else {
      d.fsdp = exact_quotient(chips, rest, "chips", "the product of the data, tensor, pipeline and context degrees");
    }
    return d;
  }
  if (any) {
    d.fsdp = args.num_if("fsdp").value_or(1);
    chips = rest * d.fsdp;
    return d;
  }
  chips = default_chips(args.chip(), warnings);
  d.fsdp = chips;
  return d;
}

void read_model_or_params(const Args& args, MemoryInputs& in, std::vector<std::string>& warnings) {
  if (args.given("params")) {
    if (args.given("model")) throw InputError("params", "give either model or params, not both");
    if (args.given("model_overrides")) throw InputError("model_overrides", "needs a model, not bare params");
    in.params = in.params_active = args.num("params");
    if (args.given("batch_tokens") && args.num("batch_tokens") > 0) {
      throw InputError("batch_tokens", "cannot size activations from a bare parameter count: give a "
                                       "model, or omit batch_tokens (or give 0)");
    }
    if (!args.given("batch_tokens")) {
      warnings.push_back("Bare params: activations are not counted (they need the model's D and L).");
    }
    return;
  }
  in.model = &args.model();
  ParamCounts p = count_params(*in.model);
  in.params = p.total();
  in.params_active = p.active();
  in.batch_tokens = args.num("batch_tokens");
}

void read_checkpointing(const Args& args, MemoryInputs& in) {
  // training_run leaves it to its search when omitted; its own layout's memory then keeps everything
  in.checkpointing = args.has("checkpointing") ? args.str("checkpointing") : "none";
  in.remat = parse_remat(in.checkpointing);
  if (in.checkpointing == "custom") {
    if (!args.given("checkpoints_per_layer")) {
      throw InputError("checkpoints_per_layer", "is required with checkpointing \"custom\"");
    }
    in.custom_checkpoints = args.num("checkpoints_per_layer");
  } else if (args.given("checkpoints_per_layer")) {
    throw InputError("checkpoints_per_layer", "applies only to checkpointing \"custom\"");
  }
}

// Micro-batch, schedule and ZeRO: global batch = micro-batch × gradient-accumulation steps × the
// data-parallel degree, in whole sequences once a micro-batch is given. Where a search tries the
// layouts (training_run: `searched`), a ZeRO stage or micro-batch that does not suit the run's own
// layout (all FSDP unless degrees are given) only narrows the search: that layout's memory is
// counted without it, and a warning says so.
void read_step(const Args& args, MemoryInputs& in, bool searched, std::vector<std::string>& warnings) {
  in.accounting = args.str("accounting") == "practice" ? Accounting::practice : Accounting::book;
  if (in.accounting == Accounting::practice && !in.model) {
    throw InputError("accounting", "\"practice\" counts tensors at their widths and needs a model, not bare params");
  }
  in.zero = args.has("zero_stage") ? int(args.num("zero_stage")) : 0;
  if (in.zero == 3) {  // ZeRO-3 over the replicas is FSDP over them
    in.degrees.fsdp *= in.degrees.dp;
    in.degrees.dp = 1;
    in.zero = 0;
  } else if (in.zero > 0 && in.degrees.dp == 1) {
    if (!searched || args.given("dp")) {
      throw InputError("zero_stage", "shards state across the dp replicas, but dp is 1 (fsdp already shards "
                                     "everything it spans)");
    }
    in.zero = 0;  // the run's own layout is all FSDP: it already shards what that stage would
  }
  in.schedule = args.has("schedule") ? parse_schedule(args.str("schedule")) : Schedule::one_f_one_b;
  in.virtual_stages = args.num_if("virtual_stages").value_or(in.schedule == Schedule::interleaved ? 2 : 1);
  in.sequence_parallel = args.flag("sequence_parallel");
  in.offload = parse_offload(args.str("optimizer_offload"));
  double replicas = in.degrees.dp * in.degrees.fsdp;
  if (args.given("micro_batch")) {
    in.micro_batch = args.num("micro_batch");
    double sequences = in.batch_tokens / in.T;
    double per_replica = sequences / replicas;
    if (std::floor(sequences) != sequences) {
      throw InputError("micro_batch", "needs whole sequences: batch_tokens " + plain(in.batch_tokens) +
                                          " is not a multiple of T = " + plain(in.T));
    }
    if (per_replica < in.micro_batch || std::fmod(per_replica, in.micro_batch) != 0) {
      std::string why = "the " + plain(per_replica) + " sequences each of the " + plain(replicas) +
                        " data-parallel replicas gets (global batch = micro-batch × accumulation steps × "
                        "data-parallel degree)";
      if (!searched || args.given("dp") || args.given("fsdp") || args.given("tp") || args.given("pp") ||
          args.given("cp")) {
        throw InputError("micro_batch", "must divide " + why + ", got " + plain(in.micro_batch));
      }
      warnings.push_back("A micro-batch of " + plain(in.micro_batch) + " sequences does not divide " + why +
                         " in the run's own layout, so its memory counts each replica's whole batch; the layout "
                         "search keeps micro-batches of " + plain(in.micro_batch) + ".");
      in.micro_batch = 0;
    }
  }
}

void check_step_layout(const MemoryInputs& in) {
  if (!in.model) return;
  const Model& m = *in.model;
  if (in.degrees.tp > m.N) {
    throw InputError("tp", "must be ≤ the model's " + plain(m.N) + " query heads, got " + plain(in.degrees.tp));
  }
  if (in.degrees.pp * in.virtual_stages > m.L) {
    throw InputError(in.virtual_stages > 1 ? "virtual_stages" : "pp",
                     "leaves a pipeline chunk without a layer: pp × virtual_stages = " +
                         plain(in.degrees.pp * in.virtual_stages) + " > the model's " + plain(m.L) + " layers");
  }
  if (in.schedule == Schedule::interleaved && in.degrees.pp > 1 && in.virtual_stages < 2) {
    throw InputError("virtual_stages", "must be at least 2 for the interleaved schedule, got " + plain(in.virtual_stages));
  }
  if (in.schedule != Schedule::interleaved && in.virtual_stages != 1) {
    throw InputError("virtual_stages", "applies to the interleaved schedule only (1 for " +
                                           kScheduleNames.name(in.schedule) + "), got " + plain(in.virtual_stages));
  }
  if (in.schedule == Schedule::dualpipe && in.degrees.pp > 1 && std::fmod(in.degrees.pp, 2) != 0) {
    throw InputError("pp", "must be even for DualPipe, which pairs stages from both ends, got " + plain(in.degrees.pp));
  }
  if (in.cp > 1 && std::fmod(in.T, 2 * in.cp) != 0) {
    throw InputError("cp", "must split the " + plain(in.T) + "-token sequence into twice its degree of equal chunks (ring "
                           "attention balances causal work that way), got " + plain(in.cp));
  }
  if (in.ep > 1) {
    if (!m.is_moe() || std::fmod(m.E, in.ep) != 0) {
      throw InputError("ep", m.is_moe() ? "must divide the model's " + plain(m.E) + " experts, got " + plain(in.ep)
                                        : "needs a mixture-of-experts model (" + m.name + " is dense)");
    }
    double ranks = in.degrees.dp * in.degrees.fsdp * in.cp;
    if (std::fmod(ranks, in.ep) != 0) {
      throw InputError("ep", "must divide the " + grouped(ranks) + " data- and context-parallel ranks "
                             "the experts are spread over, got " + grouped(in.ep));
    }
  }
}

}  // namespace

MemoryInputs read_memory_inputs(const Args& args, std::vector<std::string>& warnings, bool searched) {
  MemoryInputs in;
  read_model_or_params(args, in, warnings);
  in.T = args.num("T");
  in.cp = args.num_if("cp").value_or(1);
  in.ep = args.num_if("ep").value_or(1);
  in.degrees = resolve_memory_degrees(args, in.cp, in.chips, warnings);
  in.weight_bytes = args.dtype("weight_dtype");
  in.act_bytes = args.dtype("activation_dtype");
  in.grad_bytes = args.num("grad_bytes_per_param");
  in.optimizer_bytes = args.num("optimizer_bytes_per_param");
  in.master_bytes = args.num("master_bytes_per_param");
  read_checkpointing(args, in);
  read_step(args, in, searched, warnings);
  check_step_layout(in);
  in.workspace_bytes = in.accounting == Accounting::practice
                           ? args.num_if("workspace_bytes").value_or(default_workspace_bytes(args.chip()))
                           : 0;
  if (in.accounting == Accounting::book && args.given("workspace_bytes")) {
    warnings.push_back("workspace_bytes is counted with accounting \"practice\" only; the book's rules leave it out.");
  }
  return in;
}

// ---- communication --------------------------------------------------------------------

namespace {

constexpr EnumTable<Strategy, 7> kStrategies({{
    {Strategy::dp, "dp", "data parallelism"},
    {Strategy::fsdp, "fsdp", "fully sharded data parallelism (FSDP)"},
    {Strategy::tp, "tp", "tensor parallelism"},
    {Strategy::fsdp_tp, "fsdp_tp", "FSDP with tensor parallelism"},
    {Strategy::pp, "pp", "pipeline parallelism"},
    {Strategy::ep, "ep", "expert parallelism"},
    {Strategy::dcn_dp, "dcn_dp", "data parallelism across pods over DCN"},
}});
static_assert(kStrategies.in_enum_order(), "one row per Strategy, in enum order");

}  // namespace

Strategy parse_strategy(const std::string& s) { return kStrategies.parse(s, "strategy"); }

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = kStrategies.names();
  return names;
}

const std::vector<std::string>& strategy_titles() {
  static const std::vector<std::string> titles = kStrategies.titles();
  return titles;
}

Fabric parse_fabric(const std::string& s) {
  if (s == "nvlink") return Fabric::nvlink;
  if (s == "ib_fat_tree") return Fabric::ib_fat_tree;
  if (s == "dcn") return Fabric::dcn;
  return Fabric::ici;
}

std::string strategy_name(Strategy s) { return kStrategies.name(s); }
std::string strategy_title(Strategy s) { return kStrategies.title(s); }

std::string fabric_name(Fabric f) {
  switch (f) {
    case Fabric::ici: return "ici";
    case Fabric::nvlink: return "nvlink";
    case Fabric::ib_fat_tree: return "ib_fat_tree";
    case Fabric::dcn: return "dcn";
  }
  return "ici";
}

std::optional<Strategy> comm_strategy_for(const Degrees& d, const Chip& chip) {
  if (d.pp > 1) return Strategy::pp;
  if (d.fsdp > 1 && d.tp > 1) return chip.is_gpu() || d.dp > 1 ? Strategy::fsdp : Strategy::fsdp_tp;
  if (d.fsdp > 1) return Strategy::fsdp;
  if (d.dp > 1) return Strategy::dp;
  if (d.tp > 1) return Strategy::tp;
  return std::nullopt;
}

double largest_pow2_at_most(double x) {
  if (x < 1) return 1;
  return std::exp2(std::floor(std::log2(x)));
}

namespace {

double ring_factor(double n) { return n > 1 ? (n - 1) / n : 0; }

// Ring factor of the data-parallel collective (§2.3 table, last column).
double data_parallel_ring(const CommSetup& s, double X, double Y) {
  switch (s.fabric) {
    case Fabric::ici: return ring_factor(std::pow(X, 1 / s.axes_fsdp));
    case Fabric::nvlink: return ring_factor(X);
    case Fabric::ib_fat_tree: return ring_factor(X * std::min(Y, s.node_gpus) / s.node_gpus);
    case Fabric::dcn: return ring_factor(s.deg.dp);
  }
  return 1;
}

// Share of a TP/EP group's traffic that crosses the analysed fabric, as a ring factor.
double group_ring(const CommSetup& s, double group) {
  if (s.fabric == Fabric::ib_fat_tree) return std::max(0.0, (group - s.node_gpus) / group);
  if (s.fabric == Fabric::ici) return ring_factor(std::pow(group, 1 / s.axes_tp));
  return ring_factor(group);
}

// Real tp at which tp·r(tp) reaches `budget` (compute-bound below it).
double tp_bound(const CommSetup& s, double budget) {
  if (!s.exact_ring) return budget;
  if (s.fabric == Fabric::ib_fat_tree) return s.node_gpus + budget;
  if (s.fabric != Fabric::ici || s.axes_tp == 1) return 1 + budget;
  double lo = 1, hi = 1 + budget;  // y·r(y) ≤ y − 1 on ici, so the root lies below 1 + budget
  while (hi * group_ring(s, hi) < budget) hi *= 2;
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    (mid * group_ring(s, mid) < budget ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void fill_bandwidths(const CommSetup& s, CommNumbers& n) {
  switch (s.fabric) {
    case Fabric::ici:
      n.W_x = 2 * s.ici_link * s.axes_fsdp;
      n.W_tp = 2 * s.ici_link * s.axes_tp;
      n.W_pp = s.ici_link;
      n.Y_f = n.Y;
      n.alpha = s.C / (2 * s.ici_link);
      break;
    case Fabric::nvlink:
      n.W_x = n.W_tp = n.W_pp = s.nvlink;
      n.Y_f = n.Y;
      n.alpha = s.C / s.nvlink;
      break;
    case Fabric::ib_fat_tree:
      n.W_x = n.W_pp = s.ib;
      n.W_tp = s.ib * s.node_gpus;
      n.Y_f = std::max(n.Y, s.node_gpus);
      n.alpha = s.C / (s.ib * s.node_gpus);
      break;
    case Fabric::dcn:
      n.W_x = n.W_pp = s.dcn;
      n.W_tp = 2 * s.ici_link * s.axes_tp;
      n.Y_f = s.N / s.deg.dp;
      n.alpha = s.C / s.dcn;
      break;
  }
}

void analyse_fsdp_tp(const CommSetup& s, CommNumbers& n) {
  double X_opt = layer_time::fsdp_tp_optimal_fsdp(s.a, s.w, s.B, s.F_w, n.W_x, n.W_tp, s.N);
  n.fsdp_opt = X_opt;
  n.tp_opt = s.N / X_opt;
  double cap = largest_pow2_at_most(s.N);
  double pow2 = std::clamp(std::exp2(std::round(std::log2(X_opt))), 1.0, cap);
  n.fsdp_pow2 = pow2;
  n.tp_pow2 = largest_pow2_at_most(s.N / pow2);
  if (s.at_optimum) {
    n.X = std::clamp(X_opt, 1.0, s.N);
    n.Y = s.N / n.X;
  }
  n.t_comm_fsdp = layer_time::fsdp_tp_weight_allgather(s.D, s.F_w, s.w, n.Y, n.W_x);
  n.t_comm_tp = layer_time::fsdp_tp_activations(s.a, s.B / n.X, s.D, n.W_tp);
  n.t_comm = std::max(n.t_comm_fsdp, n.t_comm_tp);
  n.crit_per_chip = layer_time::fsdp_tp_critical_per_chip(s.C, s.w, s.a, s.F_w, s.F_a, n.W_x, n.W_tp);
  n.critical_F = layer_time::fsdp_tp_critical_F(s.C, s.w, s.a, s.F_w, s.F_a, s.N, n.W_x, n.W_tp, s.B, s.F_unit);
}

}  // namespace

CommNumbers analyse_comm(const CommSetup& s) {
  CommNumbers n;
  const Degrees& d = s.deg;
  n.X = d.dp * d.fsdp;
  n.Y = d.tp * d.pp * d.ep;
  fill_bandwidths(s, n);
  double math_fwd = layer_time::math(4, s.B, s.D, s.F_a, s.N, s.C);
  n.t_math = math_fwd;
  switch (s.strategy) {
    case Strategy::dp:
    case Strategy::dcn_dp: {
      double ar = s.sharp ? 1 : 2;
      n.ring = s.exact_ring ? data_parallel_ring(s, n.X, n.Y) : 1;
      n.t_math = layer_time::math(8, s.B, s.D, s.F_a, s.N, s.C);
      n.t_comm = layer_time::gradient_allreduce(ar, s.D, s.F_w, s.w, n.ring, n.Y_f, n.W_x);
      n.crit_per_chip = s.C * ar * s.w * s.F_w * n.ring / (4 * s.F_a * n.Y_f * n.W_x);
      break;
    }
    case Strategy::fsdp:
      n.ring = s.exact_ring ? data_parallel_ring(s, n.X, n.Y) : 1;
      n.t_comm = layer_time::weight_allgather(s.D, s.F_w, s.w, n.ring, n.Y_f, n.W_x);
      n.crit_per_chip = s.C * s.w * s.F_w * n.ring / (2 * s.F_a * n.Y_f * n.W_x);
      break;
    case Strategy::tp:
      n.ring = s.exact_ring ? group_ring(s, d.tp) : 1;
      n.t_comm = layer_time::activation_collectives(s.a, s.B / n.X, s.D, n.ring, d.pp, n.W_tp);
      n.critical_F = s.F_unit * n.t_comm / n.t_math;
      break;
    case Strategy::fsdp_tp:
      analyse_fsdp_tp(s, n);
      break;
    case Strategy::pp:
      n.t_comm = layer_time::pipeline_sends(s.a, s.B / n.X, s.D, s.microbatches, d.pp, n.W_pp, s.L);
      break;
    case Strategy::ep: {
      // The book's expert-parallel AllToAll: across nodes only (Z − G)/Z of it leaves a node, a
      // share its formula always carries; within one node exact_ring applies (Z − 1)/Z.
      n.ring = s.fabric == Fabric::ib_fat_tree || s.exact_ring ? group_ring(s, d.ep) : 1;
      n.t_math = layer_time::routed_experts_math(s.B, s.routed_k, s.D, s.F_unit, s.N, s.C);
      double G = s.fabric == Fabric::ib_fat_tree ? s.node_gpus : 1;
      double W_ep = s.fabric == Fabric::ib_fat_tree ? s.ib * s.node_gpus : s.nvlink;
      double share = std::min(G * s.routed_k / d.ep, 1.0);
      n.W_tp = W_ep;
      n.t_comm = layer_time::token_alltoall(s.a, s.B / n.X, s.D, n.ring, share, W_ep);
      n.critical_F = s.F_unit * n.t_comm / n.t_math;
      break;
    }
  }
  bool dp_like = s.strategy == Strategy::dp || s.strategy == Strategy::dcn_dp ||
                 s.strategy == Strategy::fsdp || s.strategy == Strategy::fsdp_tp;
  if (dp_like) n.dp_bytes_per_s = n.Y_f * n.W_x;
  bool has_tp_fabric = s.fabric != Fabric::dcn || s.ici_link > 0;
  if (has_tp_fabric && s.strategy != Strategy::pp && s.strategy != Strategy::ep) {
    if (s.strategy == Strategy::tp || s.strategy == Strategy::fsdp_tp) n.tp_bytes_per_s = n.W_tp;
    if (n.W_tp > 0) n.tp_limit = tp_bound(s, 2 * s.F_a * n.W_tp / (s.a * s.C) / d.ep);
  }
  if (s.fabric == Fabric::ib_fat_tree && s.nvlink > 0 && dp_like) {
    n.nvlink_stage_bytes_per_s = s.nvlink * std::min(n.Y, s.node_gpus);
    n.nvlink_stage_slower = n.nvlink_stage_bytes_per_s < n.Y_f * n.W_x;
  }
  return n;
}

}  // namespace scalelab
