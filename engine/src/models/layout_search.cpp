#include "models/layout_search.hpp"

#include <algorithm>
#include <cmath>

#include "core/format.hpp"

namespace scalelab {
namespace {

struct Bandwidths {
  double data_parallel = 0;  // per chip, for the FSDP/DP collective
  double replica_share = 1;  // Y_f: chips (or node egress shares) a replica's collective uses
  double tp = 0, pp = 0;
};

// TPU: TP takes one torus axis, PP one link, data parallelism the remaining axes.
// GPU: TP innermost (NVLink while it fits a node), then PP, then data parallelism over IB.
Bandwidths bandwidths(const LayoutProblem& p, double tp, double pp) {
  Bandwidths b;
  double Y = tp * pp;
  if (!p.gpu) {
    double axes_x = std::max(1.0, p.torus_axes - (tp > 1) - (pp > 1));
    b.data_parallel = 2 * p.ici_link_bytes_per_s * axes_x;
    b.replica_share = Y;
    b.tp = 2 * p.ici_link_bytes_per_s;
    b.pp = p.ici_link_bytes_per_s;
    return b;
  }
  double G = p.node_gpus;
  b.tp = tp <= G ? p.nvlink_bytes_per_s : p.ib_bytes_per_s * G;
  b.pp = Y <= G ? p.nvlink_bytes_per_s : p.ib_bytes_per_s;
  if (p.chips <= G) {
    b.data_parallel = p.nvlink_bytes_per_s;
    b.replica_share = Y;
  } else {
    b.data_parallel = p.ib_bytes_per_s;
    b.replica_share = std::max(Y, G);
  }
  return b;
}

RejectReason memory_reason(const LayoutProblem& p, const LayoutEval& e) {
  if (p.hbm_bytes <= 0 || e.bytes_per_chip <= p.hbm_bytes) return RejectReason::none;
  if (e.state_bytes_per_chip > p.hbm_bytes) return RejectReason::memory_state;
  if (e.activation_bytes_per_chip > p.hbm_bytes) return RejectReason::memory_activations;
  return RejectReason::memory_both;
}

RejectReason structural_reason(const LayoutProblem& p, double dp, double fsdp, double tp, double pp) {
  if (tp > p.heads || std::fmod(p.heads, tp) != 0) return RejectReason::tp_heads;
  if (pp > p.layers || std::fmod(p.layers, pp) != 0) return RejectReason::pp_layers;
  if (dp * fsdp > p.batch_tokens) return RejectReason::batch;
  if (p.pod_chips > 0 && tp * pp > p.pod_chips) return RejectReason::model_parallel_beyond_pod;
  return RejectReason::none;
}

// TPU slices of several pods: the data-parallel axis crosses DCN between pods (tp × pp stay
// inside one). Per chip, a pod's share of one weight gather is (1 − 1/pods) P b_w / n_pod
// bytes at the chip's DCN bandwidth. FSDP across pods gathers in forward and backward and
// scatters gradients (1 + 2 such transfers); DP across pods AllReduces gradients (0 + 2).
struct DcnTimes {
  double fwd = 0, bwd = 0;
};

DcnTimes dcn_times(const LayoutProblem& p, const LayoutEval& e) {
  if (p.pod_chips <= 0 || p.chips <= p.pod_chips || p.dcn_bytes_per_s <= 0) return {};
  double unit = (1 - p.pod_chips / p.chips) * p.weight_bytes * p.params_total / (p.pod_chips * p.dcn_bytes_per_s);
  bool fsdp_crosses = e.fsdp * e.tp * e.pp > p.pod_chips;
  return fsdp_crosses ? DcnTimes{unit, 2 * unit} : DcnTimes{0, 2 * unit};
}

void time_layout(const LayoutProblem& p, LayoutEval& e) {
  double N = p.chips, X = e.dp * e.fsdp;
  Bandwidths bw = bandwidths(p, e.tp, e.pp);
  double fwd_math = (2 * p.params_active * p.batch_tokens + p.attention_flops_fwd) / (N * p.flops_per_s);
  double bwd_math = 2 * fwd_math + p.recompute_flops / (N * p.flops_per_s);
  double gather = p.weight_bytes * p.params_total / (bw.replica_share * bw.data_parallel);
  DcnTimes dcn = dcn_times(p, e);
  e.t_dcn_s = dcn.fwd + dcn.bwd;
  double fwd_x = (e.fsdp > 1 ? gather : 0) + dcn.fwd;
  double bwd_x = (e.fsdp > 1 ? 2 * gather : 0) + (e.dp > 1 ? 2 * gather / e.fsdp : 0) + dcn.bwd;
  // Per layer, attention and MLP each AllGather and ReduceScatter [B/X, D] (same in backward).
  double tp_pass = e.tp > 1 ? (p.layers / e.pp) * 4 * p.act_bytes * (p.batch_tokens / X) * p.d_model / bw.tp : 0;
  double sequences = std::floor(p.batch_tokens / (X * p.seq_len));
  e.microbatches = e.pp > 1 ? std::clamp(sequences, 1.0, 4 * e.pp) : 1;
  double pp_pass = e.pp > 1 ? p.act_bytes * (p.batch_tokens / X) * p.d_model * (e.microbatches + e.pp - 2) /
                                  (e.microbatches * bw.pp)
                            : 0;
  double fwd = std::max({fwd_math, fwd_x, tp_pass, pp_pass});
  double bwd = std::max({bwd_math, bwd_x, tp_pass, pp_pass});
  double bubble = (e.microbatches + e.pp - 1) / e.microbatches;
  e.fwd_math_s = fwd_math;
  e.bwd_math_s = bwd_math;
  e.fwd_gather_s = fwd_x;
  e.bwd_gather_s = bwd_x;
  e.tp_pass_s = tp_pass;
  e.pp_pass_s = pp_pass;
  e.t_math_s = fwd_math + bwd_math;
  e.t_data_parallel_s = fwd_x + bwd_x;
  e.t_tp_s = 2 * tp_pass;
  e.t_pp_s = 2 * pp_pass;
  e.step_s = (fwd + bwd) * bubble;
  e.bubble_fraction = 1 - 1 / bubble;
  double costs[] = {e.t_math_s, e.t_data_parallel_s, e.t_tp_s, e.t_pp_s, e.step_s - (fwd + bwd)};
  e.dominant = Term(std::max_element(std::begin(costs), std::end(costs)) - std::begin(costs));
}

double largest_comm(const LayoutEval& e) { return std::max({e.t_data_parallel_s, e.t_tp_s, e.t_pp_s}); }

// Equal step times (typically several compute-bound layouts): prefer the most slack under
// the math, then the least memory.
bool faster(const LayoutEval& a, const LayoutEval& b) {
  if (a.step_s != b.step_s) return a.step_s < b.step_s;
  if (largest_comm(a) != largest_comm(b)) return largest_comm(a) < largest_comm(b);
  return a.bytes_per_chip < b.bytes_per_chip;
}

std::vector<std::uint64_t> divisors(std::uint64_t n) {
  std::vector<std::uint64_t> small, large;
  for (std::uint64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    small.push_back(d);
    if (d * d != n) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// Divisors of m taken from the divisors of n (m divides n), written into `out`.
void divisors_of(const std::vector<std::uint64_t>& all, std::uint64_t m, std::vector<std::uint64_t>& out) {
  out.clear();
  for (std::uint64_t d : all) {
    if (d > m) break;
    if (m % d == 0) out.push_back(d);
  }
}

class Collector {
 public:
  explicit Collector(const LayoutProblem& p) : top_n_(std::max(0, p.top_n)), samples_(p.rejected_samples) {
    result_.ranked.reserve(top_n_ + 1);
    result_.rejected_sample.reserve(std::max(0, samples_));
  }
  void add(const LayoutEval& e) {
    ++result_.evaluated;
    if (e.reason != RejectReason::none) {
      std::uint64_t& count = result_.rejected_by_reason[int(e.reason)];
      // The first few of each reason, up to the sample size in all.
      if (count < std::uint64_t(std::max(1, samples_ / 3)) && int(result_.rejected_sample.size()) < samples_) {
        result_.rejected_sample.push_back(e);
      }
      ++count;
      return;
    }
    ++result_.fitting;
    if (top_n_ == 0) return;
    auto& heap = result_.ranked;  // max-heap on `faster`: the slowest kept layout on top
    if (int(heap.size()) < top_n_) {
      heap.push_back(e);
      std::push_heap(heap.begin(), heap.end(), faster);
    } else if (faster(e, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), faster);
      heap.back() = e;
      std::push_heap(heap.begin(), heap.end(), faster);
    }
  }
  LayoutSearchResult finish() {
    std::sort_heap(result_.ranked.begin(), result_.ranked.end(), faster);
    return std::move(result_);
  }

 private:
  int top_n_, samples_;
  LayoutSearchResult result_;
};

}  // namespace

LayoutEval evaluate_layout(const LayoutProblem& p, double dp, double fsdp, double tp, double pp) {
  LayoutEval e;
  e.dp = dp;
  e.fsdp = fsdp;
  e.tp = tp;
  e.pp = pp;
  e.state_bytes_per_chip = p.state_bytes / (fsdp * tp * pp);
  e.activation_bytes_per_chip = p.activation_bytes / p.chips;
  e.bytes_per_chip = e.state_bytes_per_chip + e.activation_bytes_per_chip;
  time_layout(p, e);
  e.reason = structural_reason(p, dp, fsdp, tp, pp);
  if (e.reason == RejectReason::none) e.reason = memory_reason(p, e);
  return e;
}

LayoutSearchResult search_layouts(const LayoutProblem& p) {
  Collector collector(p);
  auto n = std::uint64_t(p.chips);
  std::vector<std::uint64_t> all = divisors(n), after_tp, after_pp;
  after_tp.reserve(all.size());
  after_pp.reserve(all.size());
  for (std::uint64_t tp : all) {
    divisors_of(all, n / tp, after_tp);
    for (std::uint64_t pp : after_tp) {
      std::uint64_t rest = n / tp / pp;
      divisors_of(after_tp, rest, after_pp);
      for (std::uint64_t fsdp : after_pp) {
        collector.add(evaluate_layout(p, double(rest / fsdp), double(fsdp), double(tp), double(pp)));
      }
    }
  }
  return collector.finish();
}

std::string term_name(Term t) {
  switch (t) {
    case Term::compute: return "compute";
    case Term::data_parallel: return "data_parallel_comms";
    case Term::tensor_parallel: return "tp_comms";
    case Term::pipeline_send: return "pp_comms";
    case Term::pipeline_bubble: return "pipeline_bubble";
  }
  return "compute";
}

std::string reject_reason_name(RejectReason r) {
  switch (r) {
    case RejectReason::none: return "none";
    case RejectReason::tp_heads: return "tp_does_not_divide_heads";
    case RejectReason::pp_layers: return "pp_does_not_divide_layers";
    case RejectReason::batch: return "batch_smaller_than_replicas";
    case RejectReason::memory_state: return "memory_state";
    case RejectReason::memory_activations: return "memory_activations";
    case RejectReason::memory_both: return "memory_state_plus_activations";
    case RejectReason::model_parallel_beyond_pod: return "model_parallel_beyond_pod";
  }
  return "none";
}

std::string reject_message(const LayoutProblem& p, const LayoutEval& e) {
  auto gb = [](double bytes) { return format_quantity(bytes, "bytes"); };
  switch (e.reason) {
    case RejectReason::tp_heads:
      return "tp = " + plain(e.tp) + " does not divide the " + plain(p.heads) + " query heads";
    case RejectReason::pp_layers:
      return "pp = " + plain(e.pp) + " does not divide the " + plain(p.layers) + " layers";
    case RejectReason::batch:
      return plain(e.dp * e.fsdp) + " data-parallel replicas exceed the " + plain(p.batch_tokens) + " tokens";
    case RejectReason::memory_state:
      return "parameter/optimizer state alone needs " + gb(e.state_bytes_per_chip) + " per chip > " +
             gb(p.hbm_bytes) + " HBM (shard by fsdp·tp·pp = " + plain(e.fsdp * e.tp * e.pp) + ")";
    case RejectReason::memory_activations:
      return "saved activations alone need " + gb(e.activation_bytes_per_chip) + " per chip > " +
             gb(p.hbm_bytes) + " HBM";
    case RejectReason::memory_both:
      return "state " + gb(e.state_bytes_per_chip) + " + activations " + gb(e.activation_bytes_per_chip) +
             " per chip > " + gb(p.hbm_bytes) + " HBM";
    case RejectReason::model_parallel_beyond_pod:
      return "tp × pp = " + plain(e.tp * e.pp) + " chips do not fit in one " + plain(p.pod_chips) +
             "-chip pod: tensor and pipeline parallelism would cross DCN";
    case RejectReason::none: break;
  }
  return "";
}

}  // namespace scalelab
