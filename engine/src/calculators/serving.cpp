// `serving` (ch 8): a serving setup end to end — latency, time to first token, throughput,
// cost per million tokens, interleaved or disaggregated prefill, and a sweep over batch × chips
// with its latency/throughput Pareto frontier. The decode and prefill steps are decode's and
// prefill's own functions (inference.hpp).
#include <algorithm>

#include "schema/params.hpp"
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

constexpr double kMaxSweepBatches = 64;
constexpr double kMaxSweepChips = 32;

struct Request {
  double prompt_tokens = 0, decode_tokens = 1, cached_prefix_tokens = 0, context = 0;
  double prefill_mfu = 1;
  std::optional<double> price_per_hour_usd;
  bool disaggregated = false;
};

struct ServingFigures {
  DecodeFigures decode;
  double t_prefill_s = 0, decode_time_s = 0, cycle_s = 0, latency_s = 0, throughput_tokens_per_s = 0;
  double total_chips = 0, tokens_per_s_per_chip = 0, qps_per_chip = 0, prefill_to_decode_chips = 0;
  std::optional<double> cost_per_million_tokens_usd{};
};

// serving's outputs, in the order results list them; a row read from a member of ServingFigures is
// written by write_members, the decode step's and the request's where output_serving makes them.
// clang-format off
constexpr OutputRow<ServingFigures> kOutputs[] = {
    {"step_s", "s", "step time", "time of one decode step", false},
    {"decode_time_s", "s", "decode time", "time to generate the whole response", false, &ServingFigures::decode_time_s},
    {"latency_s", "s", "response latency", "time to first token plus decode time", false, &ServingFigures::latency_s},
    {"time_to_first_token_s", "s", "time to first token", "prefill time of the prompt", false, &ServingFigures::t_prefill_s},
    {"throughput_tokens_per_s", "tokens/s", "throughput", "tokens generated per second by the server", false, &ServingFigures::throughput_tokens_per_s},
    {"tokens_per_s_per_chip", "tokens/s", "tokens per second per chip", "throughput divided by all chips", false, &ServingFigures::tokens_per_s_per_chip},
    {"qps_per_chip", "responses/s", "response rate per chip", "whole responses finished per second, per chip", false, &ServingFigures::qps_per_chip},
    {"cost_per_million_tokens_usd", "usd", "cost per million tokens", "dollars per million generated tokens at the chip price (null when the chip has no price)", true, &ServingFigures::cost_per_million_tokens_usd},
    {"prefill_to_decode_chips", "ratio", "prefill-to-decode chips", "prefill chips needed per decode chip to keep up", false, &ServingFigures::prefill_to_decode_chips},
    {"total_chips", "chips", "chips in all", "decode chips plus prefill chips", false, &ServingFigures::total_chips},
    {"context", "tokens", "context", "tokens in each sequence's cache", false},
    {"prefill_compute_fraction", "ratio", "prefill share", "fraction of the time spent on prefill when interleaved", true},
    {"sequences_finished_per_step", "sequences", "sequences finished per step", "responses that end in an average step", false},
    {"kv_tokens_freed_per_step", "tokens", "cache tokens freed per step", "cache tokens released by finished responses each step", false},
    {"max_batch", "sequences", "largest batch that fits", "sequences whose cache fits beside the weights", true},
    {"free_hbm_bytes", "bytes", "free memory", "device memory (HBM, GDDR, unified memory) left after the weights", false},
    {"bound", "", "bound", "what limits the decode step", false},
    {"mlp_bound", "", "MLP bound", "what limits the MLP alone", false},
    {"fits", "", "fits", "whether the weights and cache fit in device memory", false},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one decode step reads (null for a dense model)", true},
    {"points", "", "sweep points", "one result per swept configuration (null without a sweep)", true},
    {"pareto", "", "Pareto frontier", "indices of the points on the latency/throughput frontier (null without a sweep)", true},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the measured tokens/s divided by the throughput bound (null without a measurement)", true},
    {"achieved_bytes_per_s", "bytes/s", "achieved bandwidth", "bytes a decode step reads, over its time, times the measured share (null without a measurement)", true},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "FLOPs of a decode step, over its time, times the measured share (null without a measurement)", true},
    {"measured_verdict", "", "what usually explains the gap", "a sentence on the overheads that usually separate a measurement from this share of the bound (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published runs of this regime, how many reached a smaller share of their bound than the one measured (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured share among the published runs' (null without a measurement, or where no runs calibrate it)", true},
    {"expected_throughput_tokens_per_s_low", "tokens/s", "expected throughput, low", "the throughput bound times the low end of the share published serving runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_throughput_tokens_per_s_high", "tokens/s", "expected throughput, high", "the throughput bound times the high end of the share published serving runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_latency_s_low", "s", "expected response latency, short", "the latency bound over the high end of the published serving runs' share (null where no runs calibrate it)", true},
    {"expected_latency_s_high", "s", "expected response latency, long", "the latency bound over the low end of the published serving runs' share (null where no runs calibrate it)", true},
    {"expected_time_to_first_token_s_low", "s", "expected time to first token, short", "the time-to-first-token bound over the high end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_time_to_first_token_s_high", "s", "expected time to first token, long", "the time-to-first-token bound over the low end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"measured_ttft_share_of_bound", "ratio", "measured share of the time-to-first-token bound", "the time-to-first-token bound over the time you measured (null without a measurement)", true},
    {"measured_ttft_runs_below", "count", "published prefills below yours", "of the published prefill runs, how many reached a smaller share of their bound than your time to first token (null without a measurement, or where no runs calibrate it)", true},
    {"measured_ttft_among", "", "your first token among the published ones", "a sentence placing your time to first token's share among the published prefill runs' (null without a measurement, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published serving runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"expected_ttft_runs", "count", "published prefill runs behind the first-token range", "how many published prefill runs the expected time-to-first-token range is fitted to (null where no runs calibrate it)", true},
    {"expected_ttft_share_low", "ratio", "expected share of the first-token bound, low", "the low end of the share of the prefill bound published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_share_high", "ratio", "expected share of the first-token bound, high", "the high end of the share of the prefill bound published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_covered", "", "setup within the published prefill runs", "whether the chip's kind and the settings lie within what the published prefill runs took (null where no runs calibrate it)", true},
    {"expected_ttft_outside", "", "setup beyond the published prefill runs", "a sentence naming the chip's kind or the settings that lie outside what the published prefill runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};
// clang-format on
static_assert(well_formed(kOutputs));

Request read_request(const Args& args) {
  Request q;
  q.prompt_tokens = args.num("prompt_tokens");
  q.decode_tokens = args.num("decode_tokens");
  q.cached_prefix_tokens = args.num("cached_prefix_tokens");
  if (q.cached_prefix_tokens > q.prompt_tokens) {
    throw InputError("cached_prefix_tokens", "must be ≤ prompt_tokens (" + plain(q.prompt_tokens) +
                                                 "), got " + plain(q.cached_prefix_tokens));
  }
  q.context = args.has("context") ? args.num("context") : q.prompt_tokens + q.decode_tokens;
  q.prefill_mfu = args.num("prefill_mfu");
  q.price_per_hour_usd = args.has("price_per_hour_usd") ? args.num_if("price_per_hour_usd")
                                                        : args.chip().price_per_hour_usd;
  q.disaggregated = args.flag("disaggregated");
  return q;
}

double prefill_time(const InferenceSetup& s, const Request& q, double chips, const Steps& log) {
  double tokens = q.prompt_tokens - q.cached_prefix_tokens;
  if (tokens <= 0) {
    return log.step("Prefill time (nothing to prefill)", "T_{prefill}", 0, "s").value();
  }
  return prefill_step(s, tokens, chips, q.prefill_mfu, log).t_s;
}

void turnover(const Request& q, ServingFigures& f, const Steps& log) {
  Expr B = log.sym("B", f.decode.batch), G = log.sym("G", q.decode_tokens), n = log.sym("n", f.decode.chips);
  Expr t_prefill = log.sym("T_{prefill}", f.t_prefill_s);
  Expr decode_time = log.step("Generation time of one response", "T_{gen}", G * log.sym("T_{step}", f.decode.step_s), "s");
  f.decode_time_s = decode_time.value();
  Expr ratio = log.step("Prefill servers per decode server (balanced)", "r", B * t_prefill / decode_time, "ratio");
  f.prefill_to_decode_chips = ratio.value();
  Expr cycle = 0;
  if (q.disaggregated) {
    cycle = decode_time;
    f.latency_s = log.step("Latency of one response (disaggregated)", "", t_prefill + decode_time, "s").value();
    f.total_chips = log.step("Chips: decode server + its share of prefill servers", "n_{total}", n * (1 + ratio),
                             "chips").value();
  } else {
    cycle = log.step("Batch turnover (decode paused for each prefill)", "T_{cycle}", decode_time + B * t_prefill, "s");
    f.latency_s = cycle.value();
    f.total_chips = f.decode.chips;
  }
  f.cycle_s = cycle.value();
  Expr T_cycle = q.disaggregated ? log.sym("T_{cycle}", f.cycle_s) : cycle;
  f.throughput_tokens_per_s = log.step("Throughput", "\\text{throughput}", B * G / T_cycle, "tokens/s").value();
}

void per_chip(const Request& q, ServingFigures& f, const Steps& log) {
  Expr total = log.sym("n_{total}", f.total_chips);
  Expr per_chip = log.step("Throughput per chip", "\\text{tokens/s/chip}",
                           log.sym("\\text{throughput}", f.throughput_tokens_per_s) / total, "tokens/s");
  f.tokens_per_s_per_chip = per_chip.value();
  f.qps_per_chip = log.step("Responses per second per chip", "",
                            log.sym("B", f.decode.batch) / (log.sym("T_{cycle}", f.cycle_s) * total), "responses/s").value();
  if (!q.price_per_hour_usd) return;
  f.cost_per_million_tokens_usd =
      log.step("Cost per million generated tokens", "",
               log.sym("\\$/\\text{h}", *q.price_per_hour_usd) * 1e6 / (3600 * per_chip), "usd").value();
}

ServingFigures serve(const InferenceSetup& s, const Request& q, double batch, double chips,
                     const Steps& log) {
  // The decode figures made in place: assigned, their ~700 bytes were copied (5 % of a numbers-only
  // serving evaluation in the browser's engine).
  ServingFigures f{.decode = decode_step(s, batch, chips, q.context, log)};
  f.t_prefill_s = prefill_time(s, q, chips, log);
  turnover(q, f, log);
  per_chip(q, f, log);
  return f;
}

// The position of serving's output `name` (a name not in the table does not compile).
consteval std::size_t at(std::string_view name) { return output_index(kOutputs, name); }

void output_serving(const Request& q, const ServingFigures& f, Result& r) {
  const DecodeFigures& d = f.decode;
  r.out_at(at("step_s"), d.step_s);
  write_members<kOutputs>(f, r);
  r.out_at(at("context"), q.context);
  Expr P = r.sym("P", q.prompt_tokens), G = r.sym("G", q.decode_tokens), B = r.sym("B", d.batch);
  if (q.prompt_tokens > 0) {
    r.out_at(at("prefill_compute_fraction"), r.step("Share of the prompt to prefill (prefix cache)", "",
                                                    (P - r.sym("P_{cached}", q.cached_prefix_tokens)) / P, "ratio"));
  } else {
    r.out_null_at(at("prefill_compute_fraction"));
  }
  r.out_at(at("sequences_finished_per_step"), r.step("Sequences finished per step", "", B / G, "sequences"));
  r.out_at(at("kv_tokens_freed_per_step"), r.step("KV tokens freed per step", "", B * (P + G) / G, "tokens"));
  r.out_at(at("max_batch"), d.max_batch);
  r.out_at(at("free_hbm_bytes"), d.free_hbm_bytes);
  r.out_at(at("bound"), d.bound);
  r.out_at(at("mlp_bound"), d.mlp_bound);
  r.out_at(at("fits"), d.fits);
  r.out_at(at("experts_read_share"), d.experts_read_share);
}

json point_json(const ServingFigures& f) {
  json p = {{"batch", f.decode.batch},
            {"chips", f.decode.chips},
            {"step_s", f.decode.step_s},
            {"latency_s", f.latency_s},
            {"time_to_first_token_s", f.t_prefill_s},
            {"throughput_tokens_per_s", f.throughput_tokens_per_s},
            {"tokens_per_s_per_chip", f.tokens_per_s_per_chip},
            {"qps_per_chip", f.qps_per_chip},
            {"cost_per_million_tokens_usd", nullptr},
            {"bound", f.decode.bound},
            {"fits", f.decode.fits}};
  if (f.cost_per_million_tokens_usd) p["cost_per_million_tokens_usd"] = *f.cost_per_million_tokens_usd;
  return p;
}

// Indices of the fitting points no other fitting point beats on both lower step_s and higher
// tokens_per_s_per_chip, ordered by step_s.
json pareto_frontier(const std::vector<ServingFigures>& points) {
  std::vector<size_t> order;
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].decode.fits) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (points[a].decode.step_s != points[b].decode.step_s)
      return points[a].decode.step_s < points[b].decode.step_s;
    return points[a].tokens_per_s_per_chip > points[b].tokens_per_s_per_chip;
  });
  json frontier = json::array();
  const ServingFigures* last = nullptr;
  for (size_t i : order) {
    const ServingFigures& p = points[i];
    bool better = !last || p.tokens_per_s_per_chip > last->tokens_per_s_per_chip;
    bool same = last && p.tokens_per_s_per_chip == last->tokens_per_s_per_chip &&
                p.decode.step_s == last->decode.step_s;
    if (better || same) {
      frontier.push_back(i);
      last = &p;
    }
  }
  return frontier;
}

std::vector<double> sweep_values(const Args& args, const char* key, double fallback) {
  std::vector<double> values;
  const json& sweep = args.raw("sweep");
  if (!sweep.contains(key)) return {fallback};
  for (const auto& v : sweep[key]) values.push_back(v.get<double>());
  return values;
}

void run_sweep(const Args& args, const InferenceSetup& s, const Request& q, Result& r) {
  const json& sweep = args.raw("sweep");
  if (!sweep.contains("batch") && !sweep.contains("chips")) {
    throw InputError("sweep", "give batch and/or chips: lists of values to sweep");
  }
  std::vector<double> batches = sweep_values(args, "batch", args.num("batch"));
  std::vector<double> chip_counts = sweep_values(args, "chips", args.num("chips"));
  for (size_t i = 0; i < chip_counts.size(); ++i) {
    check_axes_tp(s, chip_counts[i], "sweep.chips[" + std::to_string(i) + "]");
  }
  check_slice_topology(s, *std::max_element(chip_counts.begin(), chip_counts.end()), r);
  std::vector<ServingFigures> points;
  json list = json::array();
  for (double chips : chip_counts) {
    for (double batch : batches) {
      points.push_back(serve(s, q, batch, chips, Steps()));
      list.push_back(point_json(points.back()));
    }
  }
  json frontier = pareto_frontier(points);
  r.out("points", list);
  r.out("pareto", frontier);
  r.step("Sweep", "\\text{points}",
         r.sym("|\\text{batch}|", double(batches.size())) * r.sym("|\\text{chips}|", double(chip_counts.size())),
         "points");
  if (frontier.empty()) r.warn("No point of the sweep fits in " + args.chip().memory_name() + ", so the Pareto frontier is empty.");
}

// The ranges published serving runs on this kind of chip reach beside the throughput and latency
// bounds, and published prefill runs beside the time to first token. The runs were fitted at full
// prefill utilisation, so the ranges are of the bounds at prefill_mfu 1 (`full`).
void output_expected(const InferenceSetup& setup, const Request& q, const ServingFigures& full, Result& r) {
  const ChipKind kind = setup.chip->kind;
  const Band* band = band_for("serving", "throughput_tokens_per_s", kind);
  out_expected(band, expected_output(kOutputs, "throughput_tokens_per_s", "throughput"),
               full.throughput_tokens_per_s, r);
  out_expected(band_for("serving", "latency_s", kind),
               expected_output(kOutputs, "latency_s", "response latency"),
               full.latency_s, r);
  out_expected(band_for("serving", "time_to_first_token_s", kind),
               expected_output(kOutputs, "time_to_first_token_s", "time to first token"),
               full.t_prefill_s, r);
  const Setup settings{{"batch", full.decode.batch}, {"chips", full.decode.chips}, {"context", q.context},
                       {"prompt_tokens", q.prompt_tokens}, {"decode_tokens", q.decode_tokens}};
  out_band(band, "serving", kind, settings, r, band_outputs(kOutputs));
  out_band(band_for("serving", "time_to_first_token_s", kind), "serving", kind,
           {{"chips", full.decode.chips}, {"prompt_tokens", q.prompt_tokens}}, r, band_outputs(kOutputs, "expected_ttft_"));
}

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  Request q = read_request(args);
  double chips = args.num("chips");
  check_axes_tp(setup, chips, "axes_tp");
  check_slice_topology(setup, chips, r);
  warn_ignored_inputs(args, r);
  ServingFigures f = serve(setup, q, args.num("batch"), chips, r.log());
  output_serving(q, f, r);
  output_measured(args, f.decode, f.throughput_tokens_per_s, band_for("serving", "throughput_tokens_per_s", setup.chip->kind), r);
  Request full = q;
  full.prefill_mfu = 1;
  const ServingFigures& bound = q.prefill_mfu == 1 ? f : serve(setup, full, args.num("batch"), chips, Steps());
  output_expected(setup, q, bound, r);
  out_measured_time(band_for("serving", "time_to_first_token_s", setup.chip->kind),
                    args.given("measured_ttft_s") ? std::optional(args.num("measured_ttft_s")) : std::nullopt,
                    bound.t_prefill_s, "time to first token", "measured_ttft_", r);
  if (!q.price_per_hour_usd) {
    r.warn(args.chip().name() +
           " has no catalog price: give a price per chip-hour (price_per_hour_usd) for the cost per "
           "million tokens.");
  }
  if (args.given("sweep")) {
    run_sweep(args, setup, q, r);
  } else {
    r.out_null("points");
    r.out_null("pareto");
  }
}

Param sweep_param() {
  using namespace params;
  Param batches = list("batch", batch(nullptr, "a batch size"), 1,
                       kMaxSweepBatches, nullptr, "batch sizes to sweep (at most 64; default: batch)");
  Param chip_counts = list("chips", chips(nullptr, "a chip count"), 1, kMaxSweepChips,
                           nullptr, "chip counts to sweep (at most 32; default: chips)");
  return object("sweep", {batches, chip_counts},
                "sweep over batch × chips: one point per pair (chips outer, batch inner) and the "
                "Pareto frontier of step time vs tokens/s per chip");
}

}  // namespace

Calculator make_serving() {
  using namespace params;
  std::vector<Param> list = decode_params(true);
  std::vector<Param> more = {
      integer("prompt_tokens", "tokens", 0, 1e8, 8192, "prompt length (0: prefill left out)"),
      integer("decode_tokens", "tokens", 1, 1e8, 512, "tokens generated per response"),
      integer("cached_prefix_tokens", "tokens", 0, 1e8, 0,
              "prompt tokens whose KV is already in a prefix cache (≤ prompt_tokens)"),
      utilisation("prefill_mfu", 1, "FLOP utilisation of the prefill (sets time to first token)"),
      number("price_per_hour_usd", "usd", 0, 1e6, nullptr,
             "price per chip-hour (default: the chip's catalog price)"),
      boolean("disaggregated", false,
              "prefill on separate servers (true) or interleaved with decode (false)"),
      number("measured_ttft_s", "s", 1e-6, 1e7, nullptr,
             "I measured: your server's time to first token for this prompt (default: none); gives its share of "
             "the bound at full utilisation and its place among the published prefill runs"),
      sweep_param(),
  };
  list.insert(list.end(), more.begin(), more.end());
  return {"serving",
          "Serving",
          {8},
          "A serving setup end to end: latency, time to first token, throughput, cost per million "
          "tokens, interleaved or disaggregated prefill, and a batch × chips sweep with its Pareto frontier.",
          list,
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
