// Layout search for training_run (issue 36): every tensor × pipeline × context × data-parallel
// (with its ZeRO stage or FSDP) × expert-parallel split of the chips, each with every micro-batch,
// rematerialisation policy and pipeline schedule the inputs leave open, priced by the training
// step's model (training_step.hpp) and ranked by step time. Every refusal has its reason, in
// words on demand. Plain numbers in, plain structs out, no allocation per layout (bench/ measures
// layouts per second).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/training_step.hpp"

namespace scalelab {

// What the inputs fix; a zero (or false) leaves that axis to the search.
struct SearchSpace {
  double tp = 0, pp = 0, cp = 0, ep = 0, data = 0;  // data: the data-parallel degree dp × fsdp
  int zero = -1;                                    // -1: search 0–3 (3 is FSDP)
  double micro_batch = -1;                          // -1: search; 0: the whole replica batch
  bool remat_fixed = false;
  Remat remat = Remat::none;
  bool schedule_fixed = false;
  Schedule schedule = Schedule::one_f_one_b;
  double virtual_stages = 0;                        // 0: the schedule's default (interleaved: 2)
  bool sequence_parallel = true;
  Offload offload = Offload::none;
};

struct LayoutProblem {
  StepModel model;
  StepSettings settings;
  StepNetwork network;
  double chips = 1;
  SearchSpace space;
  int top_n = 20;
  int rejected_samples = 12;
};

struct LayoutSearchResult {
  std::vector<StepEval> ranked;           // layouts that fit and run, fastest first (at most top_n)
  std::vector<StepEval> rejected_sample;  // a few of each reason
  std::uint64_t evaluated = 0, fitting = 0;
  std::array<std::uint64_t, kRejects> rejected_by_reason{};
  bool any_memory_miss = false;
  StepEval nearest_memory_miss;           // the refused-for-memory layout closest to fitting
};

LayoutSearchResult search_layouts(const LayoutProblem& problem);

// Why a layout was refused, in words with its numbers ("needs 95.2 GB per chip, 15.2 GB over …").
std::string reject_message(const LayoutProblem& problem, const StepEval& e);
// The terms of a step by name, for outputs: compute, data_parallel_comms, tp_comms, cp_comms,
// ep_comms, pp_comms, pipeline_bubble.
std::string term_name(int term);
// "stage 1: 7 layers, stages 2–15: 8 each, stage 16: 7 layers"
std::string stage_layers_text(double layers, double pp, double virtual_stages);
const char* schedule_id(Schedule s);
const char* schedule_title(Schedule s);
const char* remat_id(Remat r);

}  // namespace scalelab
