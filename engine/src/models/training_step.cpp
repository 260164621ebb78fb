#include "models/training_step.hpp"

#include <algorithm>
#include <cmath>

namespace scalelab {
namespace {

bool whole(double x) { return std::floor(x) == x; }
bool divides(double d, double n) { return d >= 1 && whole(n / d); }

}  // namespace

// ---- where the layers go --------------------------------------------------------------------

StageSplit split_layers(double layers, double pp, double v) {
  StageSplit s;
  double chunks = pp * v;
  if (chunks > layers || pp < 1 || v < 1) {
    s.ok = false;
    return s;
  }
  if (pp == 1) {
    s.first = s.middle = s.last = layers;
    s.chunks_first = s.chunk_middle = s.chunks_last = layers / v;
    return s;
  }
  // The middle chunks take ceil(L / chunks) each and the end chunks share what is left; when that
  // leaves too little (many stages), the middle take floor(L / chunks) and the ends the rest.
  double middle = std::ceil(layers / chunks);
  if ((chunks - 2) * middle > layers - 2 && chunks > 2) middle = std::floor(layers / chunks);
  double rest = chunks > 2 ? layers - (chunks - 2) * middle : layers;
  double first = std::floor(rest / 2), last = rest - first;
  if (first < 1 || last < 1) {
    s.ok = false;
    return s;
  }
  s.chunks_first = first;
  s.chunk_middle = middle;
  s.chunks_last = last;
  // Device 0 holds the first chunk and v − 1 middle ones; the last device v − 1 middle ones and
  // the last chunk; the others v middle chunks.
  s.first = first + (v - 1) * middle;
  s.last = last + (v - 1) * middle;
  s.middle = pp > 2 ? v * middle : std::max(s.first, s.last);
  return s;
}

// ---- schedules ------------------------------------------------------------------------------

double in_flight(Schedule schedule, double pp, double v, double m, double stage) {
  if (pp <= 1) return 1;
  switch (schedule) {
    case Schedule::gpipe: return m;
    case Schedule::one_f_one_b:
    case Schedule::zero_bubble: return std::min(m, pp - stage);
    case Schedule::interleaved: {
      // Megatron-LM's interleaved schedule: rank r runs 2(p − r − 1) + (v − 1)p warm-up chunks
      // and holds one more in the steady state; a chunk is 1/v of the device's layers.
      double chunks = 2 * (pp - stage - 1) + (v - 1) * pp + 1;
      return std::min(m * v, chunks) / v;
    }
    case Schedule::dualpipe: return std::min(m, pp + 1);
  }
  return m;
}

double bubble_units(Schedule schedule, double pp, double v) {
  if (pp <= 1) return 0;
  switch (schedule) {
    case Schedule::gpipe:
    case Schedule::one_f_one_b: return pp - 1;
    case Schedule::interleaved: return (pp - 1) / v;
    // ZB-H1 (Qi et al. 2023): (p − 1)(F + B − 2W) with F = B = W, one third of 1F1B's.
    case Schedule::zero_bubble: return (pp - 1) / 3;
    // DualPipe (DeepSeek-V3 report, Table 2): (p/2 − 1)(F&B + B − 3W); with F&B = 3F, B = 2F and
    // W = F that is (p/2 − 1)·2F of a 3F micro-batch.
    case Schedule::dualpipe: return std::max(0.0, pp / 2 - 1) * 2 / 3;
  }
  return pp - 1;
}

// ---- the parts -------------------------------------------------------------------------------

const char* part_id(Part p) {
  static const char* const ids[kParts] = {"params", "grads", "optimizer", "master", "activations",
                                          "logits", "fsdp_buffers", "workspace", "allocator_reserve"};
  return ids[int(p)];
}

const char* part_label(Part p) {
  static const char* const labels[kParts] = {
      "weights", "gradients", "optimizer state", "master weights", "saved activations",
      "fp32 logits and their gradient", "FSDP gathered layers", "framework workspace", "allocator reserve"};
  return labels[int(p)];
}

const char* part_source(Part p) {
  static const char* const sources[kParts] = {
      "parameters on this chip × weight bytes, divided by the shards that hold them (fsdp, ZeRO-3)",
      "parameters × gradient bytes; ZeRO-2 and FSDP shard them over the data-parallel ranks",
      "parameters × optimizer bytes (Adam: two fp32 moments); ZeRO-1 and up shard them; offload moves them to "
      "the host",
      "parameters × master-weight bytes (fp32 copy in mixed precision, Micikevicius et al. 2018), sharded like "
      "the optimizer",
      "tensors the forward pass saves for the backward pass, for the micro-batches in flight on this stage: "
      "the book's [tokens, D] counts, or each tensor at its true width (Korthikanti et al. 2022, 'Reducing "
      "Activation Recomputation in Large Transformer Models', section 4; torchtitan's selective policy saves "
      "attention's output and every other matmul's)",
      "the loss upcasts the [tokens, V] logits to fp32 and its backward writes an fp32 gradient of the same "
      "size (Hugging Face transformers' LlamaForCausalLM calls logits.float(); torch cross_entropy); on the "
      "last stage, split over tp by a vocabulary-parallel loss",
      "FSDP all-gathers a layer's weights before it runs and prefetches the next (PyTorch FSDP2); the "
      "embedding and output layer are gathered with the root module; with pipelining the stage's weights "
      "stay gathered for all micro-batches (torchtitan: reshard_after_forward=False under PP)",
      "CUDA context, cuBLAS and NCCL buffers outside the tensors (about 0.5-1 GiB on a GPU; none on a TPU, "
      "whose XLA programs plan their buffers ahead)",
      "memory PyTorch's caching allocator holds but cannot hand out (fragmentation): on average 15 % of "
      "reserved memory across eight LLM training setups on A100-80GB (GMLake, Guo et al., ASPLOS 2024, "
      "https://arxiv.org/abs/2401.08156)"};
  return sources[int(p)];
}

namespace {

struct Widths {
  double replicated = 0;  // [tokens, D]-wide tensors: sharded over tp only with sequence parallelism
  double sharded = 0;     // head- and F-wide tensors: always sharded over tp
};

// Elements per token per layer each policy keeps, at their true widths.
Widths saved_widths(const StepModel& m, Remat remat) {
  double D = m.d_model, F = m.mlp_width;
  double mlp_all = m.gated ? 4 * F : 2 * F;  // gate, SiLU(gate), up, product | up, GELU(up)
  switch (remat) {
    case Remat::none:
      // norms' inputs and outputs (4 D), q, k, v, attention's output, the MLP's tensors, and the
      // token copies an MoE layer routes to its experts
      return {4 * D, m.q_width + m.k_width + m.v_width + m.attn_out_width + mlp_all + m.routed_inputs * D};
    case Remat::selective: {
      // the layer's input, attention's output, and the outputs of the 1st, 3rd, 5th, 7th matmul
      // in the order q, k, v, o, (gate), up, down
      double outs[7] = {m.q_width, m.k_width, m.v_width, D, F, F, D};
      bool d_wide[7] = {false, false, false, true, false, false, true};
      Widths w{D, m.attn_out_width};
      for (int i = 0, k = 0; i < 7; ++i) {
        if (!m.gated && i == 4) continue;  // no gate matmul
        if (k++ % 2 == 0) (d_wide[i] ? w.replicated : w.sharded) += outs[i];
      }
      return w;
    }
    case Remat::full:
    case Remat::block: return {D, 0};
    case Remat::big_matmuls:
    case Remat::mlp_outputs:
    case Remat::custom: return {m.book_count * D, 0};
  }
  return {};
}

// The book's count of [tokens, D] tensors per layer under a policy (selective: its true widths in
// units of D).
double book_count(const StepModel& m, Remat remat) {
  if (remat == Remat::selective) {
    Widths w = saved_widths(m, remat);
    return (w.replicated + w.sharded) / m.d_model;
  }
  if (remat == Remat::full) return 1;
  return m.book_count;
}

}  // namespace

double saved_tensors_per_layer(const StepModel& m, Remat remat) {
  if (remat == Remat::selective || remat == Remat::none) {
    Widths w = saved_widths(m, remat);
    return (w.replicated + w.sharded) / m.d_model;
  }
  return book_count(m, remat);
}

namespace {

struct Shards {
  double weights = 1, grads = 1, optimizer = 1;
};

Shards state_shards(const StepLayout& l) {
  Shards s;
  bool fsdp = l.fsdp > 1;
  double cp = l.cp;
  s.weights = fsdp ? l.fsdp * cp : 1;
  s.grads = (fsdp || l.zero >= 2) ? l.fsdp * (l.zero >= 2 ? l.dp : 1) * cp : 1;
  s.optimizer = (fsdp || l.zero >= 1) ? l.fsdp * (l.zero >= 1 ? l.dp : 1) * cp : 1;
  return s;
}

struct StageShape {
  double layers = 0, params = 0;  // params on one chip of the stage (before data-parallel sharding)
  bool first = false, last = false;
};

// Parameters of stage `stage` on one chip, practice accounting: the stage's layers, the embedding on
// the first stage, the output layer (or the tied embedding's copy) on the last.
StageShape stage_shape(const StepModel& m, const StepLayout& l, const StageSplit& split, double stage) {
  StageShape s;
  s.first = stage == 0;
  s.last = stage == l.pp - 1;
  s.layers = s.first ? split.first : s.last ? split.last : split.middle;
  double dense = s.layers * (m.layer_params - m.layer_expert_params);
  double experts = s.layers * m.layer_expert_params / l.ep;
  double ends = 0;
  if (s.first) ends += m.embed_params;
  if (s.last) ends += m.head_params > 0 ? m.head_params : (l.pp > 1 ? m.embed_params : 0);
  s.params = (dense + ends + experts) / l.tp;
  return s;
}

double tokens_per_micro_batch(const StepSettings& s, const StepLayout& l, double& micro_batches) {
  double replica_tokens = s.batch_tokens / l.data_parallel();
  if (l.micro_batch <= 0) {
    micro_batches = 1;
    return replica_tokens;
  }
  micro_batches = replica_tokens / (l.micro_batch * s.seq_len);
  return l.micro_batch * s.seq_len;
}

void finish(StepMemory& out, const StepSettings& s) {
  double allocated = 0;
  for (int i = 0; i < kParts; ++i) allocated += out.parts[i];
  if (s.accounting == Accounting::practice && s.gpu && s.allocator_share > 0) {
    out.parts[int(Part::reserve)] = allocated * s.allocator_share / (1 - s.allocator_share);
  }
  out.total = allocated + out.parts[int(Part::reserve)];
  out.fit_bytes = allocated;
  int largest = 0;
  for (int i = 1; i < kParts; ++i) {
    if (out.parts[i] > out.parts[largest]) largest = i;
  }
  out.largest = Part(largest);
}

StepMemory book_memory(const StepModel& m, const StepSettings& s, const StepLayout& l) {
  StepMemory out;
  double tokens = tokens_per_micro_batch(s, l, out.micro_batches);
  out.tokens_per_micro_batch = tokens;
  Shards sh = state_shards(l);
  double model_parallel = l.tp * l.pp;
  double dense = m.params_total - m.layers * m.layer_expert_params;
  double per_chip = (dense + m.layers * m.layer_expert_params / l.ep) / model_parallel;
  double copies = l.schedule == Schedule::dualpipe && l.pp > 1 ? 2 : 1;
  out.stage_params = per_chip;
  out.copies = copies;
  out.shard_params = sh.weights;
  out.shard_grads = sh.grads;
  out.shard_optimizer = sh.optimizer;
  out.chip_tokens = tokens / l.cp;
  out.saved_per_token = m.d_model * book_count(m, l.remat) / l.tp;
  out.parts[int(Part::params)] = copies * per_chip * s.weight_bytes / sh.weights;
  out.parts[int(Part::grads)] = copies * per_chip * s.grad_bytes / sh.grads;
  double host = copies * per_chip * (s.optimizer_bytes + s.master_bytes) / sh.optimizer;
  if (l.offload == Offload::host) {
    out.host_bytes = host;
  } else {
    out.parts[int(Part::optimizer)] = copies * per_chip * s.optimizer_bytes / sh.optimizer;
    out.parts[int(Part::master)] = copies * per_chip * s.master_bytes / sh.optimizer;
  }
  out.stage_layers = m.layers / l.pp;
  out.in_flight = in_flight(l.schedule, l.pp, l.virtual_stages, out.micro_batches, 0);
  out.parts[int(Part::activations)] = s.act_bytes * out.chip_tokens * out.saved_per_token * out.stage_layers *
                                      out.in_flight;
  finish(out, s);
  return out;
}

StepMemory practice_stage(const StepModel& m, const StepSettings& s, const StepLayout& l, const StageSplit& split,
                          double stage) {
  StepMemory out;
  double tokens = tokens_per_micro_batch(s, l, out.micro_batches);
  out.tokens_per_micro_batch = tokens;
  out.stage = stage;
  StageShape st = stage_shape(m, l, split, stage);
  out.stage_layers = st.layers;
  Shards sh = state_shards(l);
  double copies = l.schedule == Schedule::dualpipe && l.pp > 1 ? 2 : 1;
  double P = copies * st.params;
  out.stage_params = st.params;
  out.copies = copies;
  out.shard_params = sh.weights;
  out.shard_grads = sh.grads;
  out.shard_optimizer = sh.optimizer;
  out.parts[int(Part::params)] = P * s.weight_bytes / sh.weights;
  out.parts[int(Part::grads)] = P * s.grad_bytes / sh.grads;
  double optimizer = P * s.optimizer_bytes / sh.optimizer, master = P * s.master_bytes / sh.optimizer;
  if (l.offload == Offload::host) {
    out.host_bytes = optimizer + master;
  } else {
    out.parts[int(Part::optimizer)] = optimizer;
    out.parts[int(Part::master)] = master;
  }
  // Saved activations of the micro-batches in flight.
  out.in_flight = in_flight(l.schedule, l.pp, l.virtual_stages, out.micro_batches, stage);
  Widths w = saved_widths(m, l.remat);
  double per_token = w.replicated / (l.sequence_parallel ? l.tp : 1) + w.sharded / l.tp;
  double chip_tokens = tokens / l.cp;
  out.chip_tokens = chip_tokens;
  out.saved_per_token = per_token;
  double act = s.act_bytes * chip_tokens * per_token * st.layers * out.in_flight;
  if (l.remat == Remat::full || l.remat == Remat::block) {
    // the layer being recomputed holds everything once, for one micro-batch
    Widths all = saved_widths(m, Remat::none);
    out.recompute_per_token = all.replicated / (l.sequence_parallel ? l.tp : 1) + all.sharded / l.tp;
    act += s.act_bytes * chip_tokens * out.recompute_per_token;
  }
  out.parts[int(Part::activations)] = act;
  if (st.last) out.parts[int(Part::logits)] = chip_tokens * m.vocab / l.tp * 8;
  if (l.fsdp > 1) {
    double gather = std::min(s.weight_bytes, s.act_bytes);
    double reduce = s.grad_bytes > 0 ? s.grad_bytes : gather;
    double layer = (m.layer_params - m.layer_expert_params + m.layer_expert_params / l.ep) / l.tp;
    double held = l.pp > 1 ? st.params : 2 * layer + (m.embed_params + m.head_params) / l.tp;
    double grads = l.pp > 1 ? st.params : layer;
    out.gathered_params = held;
    out.gathered_grads = grads;
    out.gather_bytes = gather;
    out.reduce_bytes = reduce;
    out.parts[int(Part::fsdp_buffers)] = held * gather + grads * reduce;
  }
  if (s.gpu) out.parts[int(Part::workspace)] = s.workspace_bytes;
  finish(out, s);
  return out;
}

StepMemory practice_memory(const StepModel& m, const StepSettings& s, const StepLayout& l) {
  StageSplit split = split_layers(m.layers, l.pp, l.virtual_stages);
  if (!split.ok) split = split_layers(m.layers, 1, 1);
  StepMemory best = practice_stage(m, s, l, split, 0);
  double candidates[2] = {1, l.pp - 1};
  for (double stage : candidates) {
    if (stage <= 0 || stage >= l.pp) continue;
    StepMemory other = practice_stage(m, s, l, split, stage);
    if (other.total > best.total) best = other;
  }
  return best;
}

void apply_paging(StepMemory& mem, const StepSettings& s, const StepLayout& l) {
  if (l.offload != Offload::paged || s.hbm_bytes <= 0 || mem.fit_bytes <= s.hbm_bytes) return;
  // Paged optimizer states leave the device when it runs short: what does not fit goes to host.
  double optimizer = mem.parts[int(Part::optimizer)] + mem.parts[int(Part::master)];
  double over = std::min(optimizer, mem.fit_bytes - s.hbm_bytes);
  double share = optimizer > 0 ? (optimizer - over) / optimizer : 0;
  mem.host_bytes += over;
  mem.parts[int(Part::optimizer)] *= share;
  mem.parts[int(Part::master)] *= share;
  mem.parts[int(Part::reserve)] = 0;
  finish(mem, s);
}

}  // namespace

StepMemory step_memory(const StepModel& m, const StepSettings& s, const StepLayout& l) {
  StepMemory mem = s.accounting == Accounting::book ? book_memory(m, s, l) : practice_memory(m, s, l);
  apply_paging(mem, s, l);
  return mem;
}

// ---- time ------------------------------------------------------------------------------------

namespace {

struct Links {
  double tp = 0, cp = 0, ep = 0, pp = 0, dp = 0;  // per chip, bytes/s one way
};

Links links(const StepNetwork& n, const StepLayout& l) {
  Links w;
  double chips = l.chips();
  if (n.gpu) {
    // Ranks in the order TP, CP, PP, DP (Llama 3's): a group stays inside an NVLink domain while
    // the ranks it spans fit in one; beyond it, each GPU's own NIC carries its share.
    double G = n.node_gpus;
    auto span = [&](double ranks) { return ranks <= G ? n.nvlink : n.ib; };
    w.tp = n.nvlink;
    w.cp = span(l.tp * l.cp);
    w.ep = span(l.tp * l.ep);
    w.pp = span(l.tp * l.cp * l.pp);
    double Y = l.tp * l.cp * l.pp;
    // across nodes, a replica spread over Y < G GPUs sends through G/Y NICs per shard (gpus.md)
    w.dp = chips <= G ? n.nvlink : n.ib * std::max(Y, G) / Y;
    return w;
  }
  double axes_tp = l.tp > n.longest_axis ? 2 : 1;
  double used = (l.tp > 1 ? axes_tp : 0) + (l.pp > 1) + (l.cp > 1);
  w.tp = 2 * n.ici_link * axes_tp;
  w.cp = w.ep = 2 * n.ici_link;
  w.pp = n.ici_link;
  w.dp = 2 * n.ici_link * std::max(1.0, n.torus_axes - used);
  return w;
}

double ring(double n) { return n > 1 ? (n - 1) / n : 0; }

// Parameters one chip holds of a stage of `layers` layers (all of them without pipelining).
double chip_params(const StepModel& m, const StepLayout& l, double layers) {
  if (l.pp <= 1) return (m.params_total - m.layers * m.layer_expert_params * (1 - 1 / l.ep)) / l.tp;
  return layers * (m.layer_params - m.layer_expert_params * (1 - 1 / l.ep)) / l.tp;
}

}  // namespace

StepTime step_time(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l,
                   const StepMemory& mem) {
  StepTime t;
  double C = s.flops_per_s, a = s.act_bytes, D = m.d_model;
  t.flops_per_s = C;
  Links w = links(n, l);
  StageSplit split = split_layers(m.layers, l.pp, l.virtual_stages);
  if (!split.ok) split = split_layers(m.layers, 1, 1);
  double tokens = mem.tokens_per_micro_batch, mbs = mem.micro_batches;
  double chip_tokens = tokens / (l.tp * l.cp);  // each chip's share of a micro-batch's work
  // The largest stage: the most layers, or the last stage's layers with the output layer.
  // Attention as it executes: a causal mask lets flash attention skip the blocks above the
  // diagonal, half of the book's count (FlashAttention-2, Dao 2023, section 3.1.1), so that the
  // bound stays below real steps at long contexts.
  double attention = m.attn_flops_fwd_per_token_layer / 2;
  double layer_flops = 2 * m.layer_active_params + attention;
  // The embedding and output layer are counted as the book's 6·P·D counts them (2·D·V a token
  // each, forward), on the first and last stage, so that no MFU exceeds 1 at the bound.
  double end_flops = 2 * D * m.vocab;
  double first = split.first * layer_flops + (l.pp > 1 ? end_flops : 2 * end_flops);
  double last = split.last * layer_flops + (l.pp > 1 ? end_flops : 0);
  double middle = l.pp > 2 ? split.middle * layer_flops : 0;
  double stage_flops = std::max({first, middle, last});
  double stage_layers = stage_flops == middle ? split.middle : stage_flops == first ? split.first : split.last;
  t.math_fwd_mb = chip_tokens * stage_flops / C;
  double recompute = 0;
  switch (l.remat) {
    case Remat::selective: recompute = 2 * m.skipped_matmul_params * stage_layers; break;
    case Remat::full:
    case Remat::block: recompute = stage_layers * layer_flops; break;
    case Remat::big_matmuls: recompute = stage_layers * attention; break;
    default: break;
  }
  t.math_bwd_mb = 2 * t.math_fwd_mb + chip_tokens * recompute / C;
  // Collectives a pass overlaps with its math, per micro-batch.
  double tp = l.tp > 1 ? stage_layers * 4 * a * (tokens / l.cp) * D * ring(l.tp) / w.tp : 0;
  double kv = (m.k_width + m.v_width) / std::min(l.tp, m.kv_heads);  // KV heads split over tp, else copied
  double cp = l.cp > 1 ? stage_layers * (l.cp - 1) * a * (tokens / l.cp) * kv / w.cp : 0;
  double ep = l.ep > 1 ? stage_layers * 2 * a * chip_tokens * D * std::max(1.0, m.routed_inputs) * ring(l.ep) / w.ep : 0;
  double send = l.pp > 1 ? a * (tokens / l.cp) * D / (l.sequence_parallel ? l.tp : 1) / w.pp : 0;
  // Data-parallel traffic: bytes this chip holds of its stage's weights or gradients.
  double stage_params = chip_params(m, l, mem.stage_layers);
  double gather_bytes = stage_params * std::min(s.weight_bytes, a);
  double grad_bytes = stage_params * (s.grad_bytes > 0 ? s.grad_bytes : std::min(s.weight_bytes, a));
  double X = l.data_parallel() * l.cp;
  double per_mb_gather = 0, per_step_dp = 0;
  if (l.fsdp > 1 && l.pp == 1) {
    per_mb_gather = gather_bytes * ring(X) / w.dp;  // forward gather; backward gathers and scatters
  } else if (l.fsdp > 1) {
    per_step_dp = (gather_bytes + grad_bytes) * ring(X) / w.dp;
  }
  if (l.fsdp == 1 && X > 1) {
    double reduce_scatter = grad_bytes * ring(X) / w.dp;
    per_step_dp = l.zero >= 2 ? mbs * reduce_scatter + gather_bytes * ring(X) / w.dp : 2 * reduce_scatter;
  }
  // TPU slices of several pods: data parallelism between pods over DCN.
  // Per chip, a pod's share of one weight gather is (1 − 1/pods)·P·b_w/n_pod bytes at the chip's DCN
  // bandwidth: FSDP across pods gathers in the forward and backward passes and scatters the
  // gradients (three such transfers), data parallelism across pods AllReduces them (two).
  if (!n.gpu && n.pod_chips > 0 && l.chips() > n.pod_chips && n.dcn > 0) {
    double unit = (1 - n.pod_chips / l.chips()) * s.weight_bytes * m.params_total / (n.pod_chips * n.dcn);
    bool fsdp_crosses = l.fsdp > 1 && l.fsdp * l.tp * l.pp * l.cp > n.pod_chips;
    t.dcn_s = (fsdp_crosses ? 3 : 2) * unit;
    per_step_dp += t.dcn_s;
  }
  double fwd = std::max({t.math_fwd_mb, tp, cp, ep, send, per_mb_gather});
  double bwd = std::max({t.math_bwd_mb, tp, 2 * cp, ep, send, 2 * per_mb_gather});
  t.t_fwd_mb = fwd;
  t.t_bwd_mb = bwd;
  double mb_time = fwd + bwd;
  t.compute_s = mbs * (t.math_fwd_mb + t.math_bwd_mb);
  t.bubble_s = bubble_units(l.schedule, l.pp, l.virtual_stages) * mb_time;
  t.dp_s = per_step_dp + mbs * 3 * per_mb_gather;
  t.gather_s = mbs * 3 * per_mb_gather;
  t.exposed_dp_s = std::max(0.0, per_step_dp - t.math_bwd_mb);
  if (l.offload == Offload::host && n.pcie > 0) {
    t.offload_s = std::max(0.0, stage_params * (s.weight_bytes + (s.grad_bytes > 0 ? s.grad_bytes : a)) /
                                        n.pcie - t.math_bwd_mb);
  }
  t.step_s = mbs * mb_time + t.bubble_s + t.exposed_dp_s + t.offload_s;
  t.bubble_fraction = t.step_s > 0 ? t.bubble_s / t.step_s : 0;
  t.tp_s = 2 * mbs * tp;
  t.cp_s = 3 * mbs * cp;
  t.ep_s = 2 * mbs * ep;
  t.pp_s = 2 * mbs * send;
  t.flops_6pd = 6 * m.params_active * s.batch_tokens;
  // attention counted as it executes (causal, as the step time counts it): no MFU exceeds 1 at the bound
  t.flops_attention = t.flops_6pd + 3 * s.batch_tokens * m.layers * attention;
  double peak = l.chips() * C * t.step_s;
  t.mfu_6pd = peak > 0 ? t.flops_6pd / peak : 0;
  t.mfu_attention = peak > 0 ? t.flops_attention / peak : 0;
  t.slowest_comm_s = std::max({t.dp_s, t.tp_s, t.cp_s, t.ep_s, t.pp_s});
  double terms[] = {t.compute_s, t.exposed_dp_s + t.gather_s, t.tp_s, t.cp_s, t.ep_s, t.pp_s, t.bubble_s};
  t.dominant = int(std::max_element(std::begin(terms), std::end(terms)) - std::begin(terms));
  return t;
}

// ---- checks ----------------------------------------------------------------------------------

const char* reject_id(Reject r) {
  static const char* const ids[kRejects] = {
      "none", "tp_does_not_divide_heads", "tp_beyond_fast_domain", "pp_does_not_split_layers",
      "cp_does_not_split_sequence", "ep_does_not_divide_experts", "ep_does_not_divide_data_ranks",
      "batch_does_not_split", "schedule_not_possible", "memory", "bubble_above_limit", "comms_above_compute",
      "model_parallel_beyond_pod", "offload_needs_host_link"};
  return ids[int(r)];
}

const char* reject_title(Reject r, bool gpu) {
  static const char* const titles[kRejects] = {
      "it fits",
      "tensor parallelism does not divide the heads",
      "tensor parallelism is longer than two axes of the torus",
      "the stages cannot hold the layers",
      "context parallelism does not split the sequence",
      "expert parallelism does not divide the experts",
      "expert parallelism does not divide the data-parallel ranks",
      "the batch does not split into replicas and micro-batches",
      "the schedule cannot run with these stages",
      "the state and activations per chip exceed the chip's memory",
      "the pipeline bubble is above the limit",
      "communication takes longer than compute",
      "model parallelism would cross pods",
      "optimizer offload needs a host link"};
  if (gpu && r == Reject::tp_domain) return "tensor parallelism spans more than one NVLink domain";
  return titles[int(r)];
}

Reject structural_reject(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l) {
  if (!divides(l.tp, m.heads)) return Reject::tp_heads;
  if (n.gpu ? l.tp > n.node_gpus : l.tp > n.axes[0] * std::max(1.0, n.axes[1])) return Reject::tp_domain;
  if (!split_layers(m.layers, l.pp, l.virtual_stages).ok) return Reject::pp_layers;
  if (l.cp > 1 && !whole(s.seq_len / (2 * l.cp))) return Reject::cp_sequence;
  if (l.ep > 1 && (m.experts <= 1 || !divides(l.ep, m.experts))) return Reject::ep_experts;
  if (l.ep > 1 && !divides(l.ep, l.data_parallel() * l.cp)) return Reject::ep_ranks;
  double replica_sequences = s.batch_tokens / s.seq_len / l.data_parallel();
  if (replica_sequences < 1) return Reject::batch;
  if (l.micro_batch > 0 && !(whole(replica_sequences) && divides(l.micro_batch, replica_sequences))) {
    return Reject::batch;
  }
  bool interleaved = l.schedule == Schedule::interleaved;
  if (l.pp > 1 && (interleaved ? l.virtual_stages < 2 : l.virtual_stages != 1)) return Reject::schedule;
  if (l.pp == 1 && l.virtual_stages != 1) return Reject::schedule;
  if (l.pp > 1 && l.schedule == Schedule::dualpipe && !whole(l.pp / 2)) return Reject::schedule;
  if (!n.gpu && n.pod_chips > 0 && l.chips() > n.pod_chips && l.tp * l.pp * l.cp > n.pod_chips) {
    return Reject::model_parallel_beyond_pod;
  }
  if (l.offload == Offload::host && n.pcie <= 0) return Reject::offload_link;
  return Reject::none;
}

StepEval evaluate_step(const StepModel& m, const StepSettings& s, const StepNetwork& n, const StepLayout& l) {
  StepEval e;
  e.layout = l;
  e.reason = structural_reject(m, s, n, l);
  if (e.reason != Reject::none) return e;
  e.memory = step_memory(m, s, l);
  if (s.hbm_bytes > 0 && e.memory.fit_bytes > s.hbm_bytes) {
    e.reason = Reject::memory;  // priced no further: the search has many of these
    return e;
  }
  e.time = step_time(m, s, n, l, e.memory);
  if (e.time.bubble_fraction > s.max_bubble) {
    e.reason = Reject::bubble;
  } else if (s.max_comm_ratio > 0 && e.time.slowest_comm_s > s.max_comm_ratio * e.time.compute_s) {
    e.reason = Reject::comms;
  }
  return e;
}

}  // namespace scalelab
