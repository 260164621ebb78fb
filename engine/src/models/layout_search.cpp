#include "layout_search.hpp"

#include <algorithm>
#include <tuple>
#include <cmath>

#include "core/format.hpp"
#include "core/format_words.hpp"

namespace scalelab {
namespace {

std::vector<double> divisors(double value) {
  auto n = std::uint64_t(value);
  std::vector<double> small, large;
  for (std::uint64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    small.push_back(double(d));
    if (d * d != n) large.push_back(double(n / d));
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

bool divides(double d, double n) { return d >= 1 && std::fmod(n, d) == 0; }

// Equal step times: the one with less memory first, then the layout's own order, so that the
// ranking is one total order (the same top layouts natively and in WebAssembly, whose standard
// libraries break ties differently).
bool faster(const StepEval& a, const StepEval& b) {
  if (a.time.step_s != b.time.step_s) return a.time.step_s < b.time.step_s;
  if (a.memory.total != b.memory.total) return a.memory.total < b.memory.total;
  const StepLayout &x = a.layout, &y = b.layout;
  return std::tie(x.tp, x.pp, x.dp, x.fsdp, x.cp, x.ep, x.zero, x.micro_batch, x.virtual_stages, x.remat, x.schedule,
                  x.sequence_parallel, x.offload) < std::tie(y.tp, y.pp, y.dp, y.fsdp, y.cp, y.ep, y.zero, y.micro_batch,
                                                             y.virtual_stages, y.remat, y.schedule, y.sequence_parallel,
                                                             y.offload);
}

class Collector {
 public:
  explicit Collector(const LayoutProblem& p) : top_n_(std::max(0, p.top_n)), samples_(std::max(0, p.rejected_samples)) {
    result_.ranked.reserve(top_n_ + 1);
    result_.rejected_sample.reserve(samples_);
  }
  void add(const StepEval& e) {
    ++result_.evaluated;
    if (e.reason != Reject::none) {
      std::uint64_t& count = result_.rejected_by_reason[int(e.reason)];
      if (count < std::uint64_t(std::max(1, samples_ / 4)) && int(result_.rejected_sample.size()) < samples_) {
        result_.rejected_sample.push_back(e);
      }
      ++count;
      if (e.reason == Reject::memory &&
          (!result_.any_memory_miss || e.memory.fit_bytes < result_.nearest_memory_miss.memory.fit_bytes)) {
        result_.any_memory_miss = true;
        result_.nearest_memory_miss = e;
      }
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
  // Layouts refused before pricing (a degree that does not divide): counted, one kept as a sample.
  void refuse(const StepLayout& l, Reject reason, std::uint64_t layouts) {
    result_.evaluated += layouts;
    std::uint64_t& count = result_.rejected_by_reason[int(reason)];
    if (count < std::uint64_t(std::max(1, samples_ / 4)) && int(result_.rejected_sample.size()) < samples_) {
      StepEval e;
      e.layout = l;
      e.reason = reason;
      result_.rejected_sample.push_back(e);
    }
    count += layouts;
  }
  LayoutSearchResult finish() {
    std::sort_heap(result_.ranked.begin(), result_.ranked.end(), faster);
    return std::move(result_);
  }

 private:
  int top_n_, samples_;
  LayoutSearchResult result_;
};

struct ScheduleOption {
  Schedule schedule;
  double virtual_stages;
};

std::vector<ScheduleOption> schedules(const SearchSpace& s, double pp) {
  if (pp <= 1) return {{s.schedule_fixed ? s.schedule : Schedule::one_f_one_b, 1}};
  if (s.schedule_fixed) {
    double v = s.virtual_stages > 0 ? s.virtual_stages : s.schedule == Schedule::interleaved ? 2 : 1;
    return {{s.schedule, v}};
  }
  return {{Schedule::gpipe, 1},       {Schedule::one_f_one_b, 1}, {Schedule::interleaved, 2},
          {Schedule::interleaved, 4}, {Schedule::zero_bubble, 1}, {Schedule::dualpipe, 1}};
}

std::vector<Remat> remats(const SearchSpace& s) {
  if (s.remat_fixed) return {s.remat};
  return {Remat::none, Remat::selective, Remat::full};
}

// Micro-batch sizes (sequences) the search tries: the powers of two up to 32 that divide the
// replica's sequences, and the whole replica batch; the whole batch alone when the sequences are
// not whole. (Larger micro-batches only add activations and bubble in this model.)
constexpr double kLargestMicroBatch = 32;

std::vector<double> micro_batches(const SearchSpace& s, double replica_sequences) {
  if (s.micro_batch >= 0) return {s.micro_batch};
  if (replica_sequences < 1 || std::floor(replica_sequences) != replica_sequences) return {0};
  std::vector<double> out;
  for (double mb = 1; mb < replica_sequences && mb <= kLargestMicroBatch; mb *= 2) {
    if (divides(mb, replica_sequences)) out.push_back(mb);
  }
  out.push_back(0);  // one micro-batch: the whole replica batch
  return out;
}

}  // namespace

LayoutSearchResult search_layouts(const LayoutProblem& p) {
  Collector collector(p);
  const SearchSpace& space = p.space;
  const StepModel& m = p.model;
  double sequences = p.settings.batch_tokens / p.settings.seq_len;
  std::vector<Remat> remat_options = remats(space);
  for (double tp : divisors(p.chips)) {
    if (space.tp > 0 && tp != space.tp) continue;
    for (double pp : divisors(p.chips / tp)) {
      if (space.pp > 0 && pp != space.pp) continue;
      std::vector<ScheduleOption> schedule_options = schedules(space, pp);
      for (double cp : divisors(p.chips / (tp * pp))) {
        if (space.cp > 0 && cp != space.cp) continue;
        double data = p.chips / (tp * pp * cp);
        if (space.data > 0 && data != space.data) continue;
        for (int zero = 0; zero <= 3; ++zero) {
          if (space.zero >= 0 ? zero != space.zero : (data == 1 && zero > 0)) continue;
          std::vector<double> ep_options{1};
          if (m.experts > 1) {
            ep_options.clear();
            for (double ep : divisors(data * cp)) {
              if (divides(ep, m.experts)) ep_options.push_back(ep);
            }
          }
          for (double ep : ep_options) {
            if (space.ep > 0 && ep != space.ep) continue;
            StepLayout l;
            l.tp = tp;
            l.pp = pp;
            l.cp = cp;
            l.ep = ep;
            l.dp = zero == 3 ? 1 : data;
            l.fsdp = zero == 3 ? data : 1;
            l.zero = zero == 3 ? 0 : zero;
            l.sequence_parallel = space.sequence_parallel;
            l.offload = space.offload;
            std::vector<double> mb_options = micro_batches(space, sequences / data);
            std::uint64_t inner = std::uint64_t(mb_options.size() * remat_options.size() * schedule_options.size());
            // Refusals that hold for every micro-batch, policy and schedule: counted once for all.
            l.schedule = schedule_options.front().schedule;
            l.virtual_stages = schedule_options.front().virtual_stages;
            l.micro_batch = mb_options.front();
            Reject outer = structural_reject(m, p.settings, p.network, l);
            if (outer == Reject::tp_heads || outer == Reject::tp_domain || outer == Reject::cp_sequence ||
                outer == Reject::ep_experts || outer == Reject::ep_ranks || outer == Reject::model_parallel_beyond_pod ||
                (outer == Reject::batch && sequences / data < 1)) {
              collector.refuse(l, outer, inner);
              continue;
            }
            for (double mb : mb_options) {
              l.micro_batch = mb;
              for (Remat remat : remat_options) {
                l.remat = remat;
                for (const ScheduleOption& sc : schedule_options) {
                  l.schedule = sc.schedule;
                  l.virtual_stages = sc.virtual_stages;
                  collector.add(evaluate_step(m, p.settings, p.network, l));
                }
              }
            }
          }
        }
      }
    }
  }
  return collector.finish();
}

// ---- words -----------------------------------------------------------------------------------

const char* schedule_id(Schedule s) {
  static const char* const ids[kSchedules] = {"gpipe", "1f1b", "interleaved", "zero_bubble", "dualpipe"};
  return ids[int(s)];
}

const char* schedule_title(Schedule s) {
  static const char* const titles[kSchedules] = {"GPipe", "1F1B", "interleaved 1F1B", "zero-bubble (ZB-H1)",
                                                 "DualPipe"};
  return titles[int(s)];
}

const char* remat_id(Remat r) {
  static const char* const ids[kRemats] = {"none", "block", "big_matmuls", "mlp_outputs", "custom", "selective", "full"};
  return ids[int(r)];
}

std::string term_name(int term) {
  static const char* const names[] = {"compute",  "data_parallel_comms", "tp_comms",       "cp_comms",
                                      "ep_comms", "pp_comms",            "pipeline_bubble"};
  return names[std::clamp(term, 0, 6)];
}

std::string stage_layers_text(double layers, double pp, double v) {
  if (pp <= 1) return "one stage: all " + grouped(layers) + " layers";
  StageSplit s = split_layers(layers, pp, v);
  if (!s.ok) return grouped(layers) + " layers cannot fill " + grouped(pp * v) + " pipeline chunks";
  auto count = [](double n) { return grouped(n) + (n == 1 ? " layer" : " layers"); };
  std::string chunks = v > 1 ? " (" + grouped(v) + " chunks each)" : "";
  if (s.first == s.middle && s.last == s.middle) return grouped(pp) + " stages of " + count(s.middle) + chunks;
  std::string middle = pp > 2 ? ", stages 2–" + grouped(pp - 1) + ": " + grouped(s.middle) + " each" : "";
  return "stage 1: " + count(s.first) + middle + ", stage " + grouped(pp) + ": " + count(s.last) + chunks;
}

std::string reject_message(const LayoutProblem& p, const StepEval& e) {
  auto gb = [](double bytes) { return format_quantity(bytes, "bytes"); };
  const StepLayout& l = e.layout;
  const StepModel& m = p.model;
  double sequences = p.settings.batch_tokens / p.settings.seq_len;
  switch (e.reason) {
    case Reject::none: return "";
    case Reject::tp_heads:
      return format_quantity(l.tp, "count") + "-way tensor parallelism does not divide the " + format_quantity(m.heads, "count") + " query heads";
    case Reject::tp_domain:
      if (p.network.gpu) {
        return format_quantity(l.tp, "count") + "-way tensor parallelism spans more than the " + grouped(p.network.node_gpus) +
               " GPUs of one NVLink domain: its collectives every layer would cross the slower network";
      }
      return format_quantity(l.tp, "count") + "-way tensor parallelism is longer than two axes of the chip's torus can hold";
    case Reject::pp_layers:
      return format_quantity(l.pp, "stages") + " × " + format_quantity(l.virtual_stages, "chunks") +
             " cannot each hold at least one of the " + format_quantity(m.layers, "layers");
    case Reject::cp_sequence:
      return format_quantity(l.cp, "count") + "-way context parallelism does not split the " + format_quantity(p.settings.seq_len, "count") + "-token sequence into " +
             format_quantity(2 * l.cp, "count") + " equal chunks (ring attention gives each rank two, to balance causal work)";
    case Reject::ep_experts:
      return m.experts > 1 ? format_quantity(l.ep, "count") + "-way expert parallelism does not divide the " + format_quantity(m.experts, "experts")
                           : format_quantity(l.ep, "count") + "-way expert parallelism needs a mixture-of-experts model";
    case Reject::ep_ranks:
      return format_quantity(l.ep, "count") + "-way expert parallelism does not divide the " + format_quantity(l.data_parallel() * l.cp, "count") +
             " data- and context-parallel ranks its experts are spread over";
    case Reject::batch: {
      double replicas = l.data_parallel();
      // the batch in sequences need not be whole (batch tokens / sequence length): said as people would
      const std::string batch = std::floor(sequences) == sequences
                                    ? format_quantity(sequences, "sequences")
                                    : count_words(sequences, "sequences") + ", not a whole number";
      if (sequences / replicas < 1) {
        return format_quantity(replicas, "count") + " data-parallel replicas exceed the batch of " + batch;
      }
      return "the batch of " + batch + " does not split into " + format_quantity(replicas, "count") +
             " replicas × micro-batches of " + format_quantity(l.micro_batch, "sequences");
    }
    case Reject::schedule:
      if (l.pp <= 1) return "a pipeline schedule with virtual stages needs pipeline stages";
      if (l.schedule == Schedule::interleaved) return "interleaved 1F1B needs at least 2 virtual stages per device";
      if (l.schedule == Schedule::dualpipe) return "DualPipe pairs stages from both ends: it needs an even stage count, got " + grouped(l.pp);
      return std::string(schedule_title(l.schedule)) + " runs one chunk per device (virtual stages 1)";
    case Reject::memory: {
      const StepMemory& mem = e.memory;
      std::string where = l.pp > 1 ? " on stage " + grouped(mem.stage + 1) + " of " + grouped(l.pp) : "";
      std::string flight = mem.largest == Part::activations && mem.in_flight > 1
                               ? ", " + count_words(mem.in_flight, "micro-batches") + " in flight"
                               : "";
      return "needs " + gb(mem.fit_bytes) + " per chip, " + gb(mem.fit_bytes - p.settings.hbm_bytes) + " over the " +
             gb(p.settings.hbm_bytes) + " of memory; the largest part is " + part_label(mem.largest) + " (" +
             gb(mem.parts[int(mem.largest)]) + where + flight + ")";
    }
    case Reject::bubble:
      return std::string(schedule_title(l.schedule)) + "'s bubble is " + grouped(std::round(e.time.bubble_fraction * 100)) +
             " % of the step with " + grouped(e.memory.micro_batches) +
             (e.memory.micro_batches == 1 ? " micro-batch over " : " micro-batches over ") + grouped(l.pp) +
             " stages, above the " + grouped(std::round(p.settings.max_bubble * 100)) + " % allowed";
    case Reject::comms:
      return "the slowest collective takes " + format_quantity(e.time.slowest_comm_s, "s") + " a step against " +
             format_quantity(e.time.compute_s, "s") + " of compute (more than " + grouped(p.settings.max_comm_ratio) +
             "×)";
    case Reject::model_parallel_beyond_pod:
      return "the model-parallel group (tensor × pipeline × context) of " + grouped(l.tp * l.pp * l.cp) + " chips does not fit in one " +
             grouped(p.network.pod_chips) + "-chip pod: model parallelism would cross DCN";
    case Reject::offload_link:
      return "optimizer offload needs the chip's host link (pcie_bytes_per_s), which the catalog does not give";
  }
  return "";
}

}  // namespace scalelab
