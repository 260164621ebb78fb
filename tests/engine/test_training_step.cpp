// The training step's pure model (models/training_step): where the layers go, what each pipeline
// schedule holds in flight and leaves idle, each memory part against a hand count, and the book's
// accounting equal to the book's rule.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "models/layout_search.hpp"
#include "models/training_step.hpp"

namespace {

using namespace scalelab;

// A dense gated GQA model in the shape of Llama 3 (L, D, F, N, K, head 128, V).
StepModel dense(double L, double D, double F, double N, double K, double V, double T) {
  double H = 128;
  StepModel m;
  m.layers = L;
  m.d_model = D;
  m.vocab = V;
  m.heads = N;
  m.kv_heads = K;
  m.q_width = m.attn_out_width = N * H;
  m.k_width = m.v_width = K * H;
  m.mlp_width = F;
  double layer = 2 * D * H * (N + K) + 3 * D * F + 2 * D;
  m.layer_params = m.layer_active_params = layer;
  m.embed_params = m.head_params = D * V;
  m.params_total = m.params_active = L * layer + 2 * D * V;
  m.attn_flops_fwd_per_token_layer = 2 * T * N * 2 * H;
  m.skipped_matmul_params = D * K * H + N * H * D + D * F;
  return m;
}

StepModel llama3_405b(double T = 8192) { return dense(126, 16384, 53248, 128, 8, 128256, T); }
StepModel llama3_8b(double T = 8192) { return dense(32, 4096, 14336, 32, 8, 128256, T); }

StepNetwork h100_cluster() {
  StepNetwork n;
  n.gpu = true;
  n.node_gpus = 8;
  n.nvlink = 450e9;
  n.ib = 50e9;
  n.pcie = 63e9;
  return n;
}

TEST(TrainingStep, LayersGoToStagesWithTheEndsTakingTheRemainder) {
  StageSplit s = split_layers(126, 16, 1);  // Llama 3 405B: one layer fewer on the first and last stage
  EXPECT_EQ(s.first, 7);
  EXPECT_EQ(s.middle, 8);
  EXPECT_EQ(s.last, 7);
  EXPECT_EQ(s.first + 14 * s.middle + s.last, 126);
  s = split_layers(80, 8, 1);
  EXPECT_EQ(s.first, 10);
  EXPECT_EQ(s.middle, 10);
  EXPECT_EQ(s.last, 10);
  s = split_layers(61, 16, 1);
  EXPECT_EQ(s.first + 14 * s.middle + s.last, 61);
  s = split_layers(126, 16, 2);  // 32 chunks: 30 of 4, the ends 3 each
  EXPECT_EQ(s.chunk_middle, 4);
  EXPECT_EQ(s.chunks_first + 30 * s.chunk_middle + s.chunks_last, 126);
  EXPECT_EQ(s.first, s.chunks_first + s.chunk_middle);
  EXPECT_FALSE(split_layers(30, 16, 2).ok);  // 32 chunks for 30 layers
  EXPECT_FALSE(split_layers(8, 16, 1).ok);
}

TEST(TrainingStep, SchedulesHoldTheirMicroBatchesInFlight) {
  double p = 16, m = 32;
  EXPECT_EQ(in_flight(Schedule::gpipe, p, 1, m, 0), m);
  EXPECT_EQ(in_flight(Schedule::one_f_one_b, p, 1, m, 0), p);
  EXPECT_EQ(in_flight(Schedule::one_f_one_b, p, 1, m, p - 1), 1);
  EXPECT_EQ(in_flight(Schedule::one_f_one_b, p, 1, 4, 0), 4);  // fewer micro-batches than stages
  // Megatron's interleaved schedule: the first stage holds p(1 + (p − 1)/(p v)) micro-batches
  // (Korthikanti et al. 2022, section 4.2.3)
  EXPECT_DOUBLE_EQ(in_flight(Schedule::interleaved, p, 2, m, 0), p * (1 + (p - 1) / (p * 2)));
  EXPECT_EQ(in_flight(Schedule::zero_bubble, p, 1, m, 0), p);
  EXPECT_EQ(in_flight(Schedule::dualpipe, p, 1, m, 0), p + 1);
  EXPECT_EQ(in_flight(Schedule::gpipe, 1, 1, m, 0), 1);  // no pipeline: one micro-batch at a time
}

TEST(TrainingStep, BubblesShrinkFromOneFOneBToZeroBubble) {
  double p = 8;
  EXPECT_EQ(bubble_units(Schedule::one_f_one_b, p, 1), p - 1);
  EXPECT_EQ(bubble_units(Schedule::gpipe, p, 1), p - 1);
  EXPECT_EQ(bubble_units(Schedule::interleaved, p, 4), (p - 1) / 4);
  EXPECT_DOUBLE_EQ(bubble_units(Schedule::zero_bubble, p, 1), (p - 1) / 3);
  EXPECT_DOUBLE_EQ(bubble_units(Schedule::dualpipe, p, 1), (p / 2 - 1) * 2 / 3);
  EXPECT_EQ(bubble_units(Schedule::one_f_one_b, 1, 1), 0);
}

TEST(TrainingStep, BookAccountingIsTheBooksRule) {
  StepModel m = llama3_8b(4096);
  m.book_count = 20;
  StepSettings s;
  s.batch_tokens = 4194304;
  s.seq_len = 4096;
  StepLayout l;
  l.fsdp = 64;
  l.tp = 4;
  l.pp = 2;
  StepMemory mem = step_memory(m, s, l);
  double chips = 512;
  double state = m.params_total * (2 + 0 + 8 + 0) / chips;
  double activations = 2 * s.batch_tokens * m.d_model * m.layers * 20 / chips;
  EXPECT_NEAR(mem.total, state + activations, 1e-9 * mem.total);
  EXPECT_EQ(mem.parts[int(Part::logits)], 0);
  EXPECT_EQ(mem.parts[int(Part::reserve)], 0);
}

TEST(TrainingStep, ZeroStagesShardOptimizerThenGradients) {
  StepModel m = llama3_8b();
  StepSettings s;
  s.batch_tokens = 64 * 8192;
  s.seq_len = 8192;
  s.grad_bytes = 4;
  s.master_bytes = 4;
  StepLayout l;
  l.dp = 8;
  StepMemory z0 = step_memory(m, s, l);
  l.zero = 1;
  StepMemory z1 = step_memory(m, s, l);
  l.zero = 2;
  StepMemory z2 = step_memory(m, s, l);
  EXPECT_DOUBLE_EQ(z1.parts[int(Part::optimizer)], z0.parts[int(Part::optimizer)] / 8);
  EXPECT_DOUBLE_EQ(z1.parts[int(Part::master)], z0.parts[int(Part::master)] / 8);
  EXPECT_DOUBLE_EQ(z1.parts[int(Part::grads)], z0.parts[int(Part::grads)]);
  EXPECT_DOUBLE_EQ(z2.parts[int(Part::grads)], z0.parts[int(Part::grads)] / 8);
  EXPECT_DOUBLE_EQ(z2.parts[int(Part::params)], z0.parts[int(Part::params)]);
  l.zero = 1;
  l.offload = Offload::host;
  StepMemory off = step_memory(m, s, l);
  EXPECT_EQ(off.parts[int(Part::optimizer)], 0);
  EXPECT_DOUBLE_EQ(off.host_bytes, z1.parts[int(Part::optimizer)] + z1.parts[int(Part::master)]);
}

TEST(TrainingStep, PracticeCountsEachPartAtItsWidth) {
  StepModel m = llama3_8b();
  StepSettings s;
  s.accounting = Accounting::practice;
  s.gpu = true;
  s.batch_tokens = 16 * 8192;
  s.seq_len = 8192;
  s.weight_bytes = 4;  // FSDP2 keeps fp32 shards
  s.grad_bytes = 4;
  s.optimizer_bytes = 8;
  s.allocator_share = 0.15;
  StepLayout l;
  l.fsdp = 8;
  l.micro_batch = 2;
  l.remat = Remat::selective;
  StepMemory mem = step_memory(m, s, l);
  double tokens = 2 * 8192;
  EXPECT_DOUBLE_EQ(mem.parts[int(Part::params)], m.params_total * 4 / 8);
  // selective keeps the layer's input, attention's output and the 1st, 3rd, 5th, 7th matmul's:
  // D + N·H + (q) N·H + (v) K·H + (gate) F + (down) D
  double widths = 4096 + 4096 + 4096 + 1024 + 14336 + 4096;
  EXPECT_DOUBLE_EQ(mem.parts[int(Part::activations)], 2 * tokens * widths * 32);
  EXPECT_DOUBLE_EQ(mem.parts[int(Part::logits)], tokens * 128256 * 8);
  // two layers gathered in bf16 with the embedding and output, one layer's fp32 gradient
  EXPECT_DOUBLE_EQ(mem.parts[int(Part::fsdp_buffers)],
                   (2 * m.layer_params + 2 * 4096 * 128256.0) * 2 + m.layer_params * 4);
  double allocated = mem.total - mem.parts[int(Part::reserve)];
  EXPECT_NEAR(mem.parts[int(Part::reserve)] / mem.total, 0.15, 1e-12);
  EXPECT_GT(allocated, 0);
}

TEST(TrainingStep, FullRematKeepsLayerInputsAndOneLayerRecomputed) {
  StepModel m = llama3_8b();
  StepSettings s;
  s.accounting = Accounting::practice;
  s.batch_tokens = 8 * 8192;
  s.seq_len = 8192;
  StepLayout l;
  l.fsdp = 8;
  l.tp = 1;
  l.micro_batch = 1;
  l.remat = Remat::full;
  StepMemory mem = step_memory(m, s, l);
  double none_widths = 4 * 4096 + 4096 + 1024 + 1024 + 4096 + 4 * 14336;
  EXPECT_DOUBLE_EQ(mem.parts[int(Part::activations)], 2 * 8192 * (4096 * 32 + none_widths));
}

TEST(TrainingStep, LlamaThree405BLayoutFitsIn80GBAndTakesSeconds) {
  // The Llama 3 paper's layout on 8,192 H100s: TP 8, PP 16, DP 64, 16M-token batches of 8k
  StepModel m = llama3_405b();
  StepSettings s;
  s.accounting = Accounting::practice;
  s.gpu = true;
  s.batch_tokens = 2048 * 8192;
  s.seq_len = 8192;
  s.grad_bytes = 4;
  s.master_bytes = 4;
  s.flops_per_s = 990e12;
  s.hbm_bytes = 80e9;
  s.workspace_bytes = 1073741824.0;
  s.allocator_share = 0.15;
  StepLayout l;
  l.tp = 8;
  l.pp = 16;
  l.dp = 64;
  l.zero = 1;
  l.micro_batch = 1;
  l.schedule = Schedule::interleaved;
  l.virtual_stages = 2;
  l.remat = Remat::full;
  StepEval e = evaluate_step(m, s, h100_cluster(), l);
  EXPECT_EQ(e.reason, Reject::none) << reject_id(e.reason);
  EXPECT_LT(e.memory.total, 80e9);
  EXPECT_EQ(e.memory.micro_batches, 32);
  // the published 430 TFLOP/s per GPU is 11.6 s a step: the bound lies below it
  double measured = 6 * m.params_active * s.batch_tokens / (8192 * 430e12);
  EXPECT_LT(e.time.step_s, measured);
  EXPECT_GT(e.time.step_s, 0.5 * measured);
  l.remat = Remat::none;
  EXPECT_EQ(evaluate_step(m, s, h100_cluster(), l).reason, Reject::memory);
}

TEST(TrainingStep, StructuralChecksNameWhatDoesNotDivide) {
  StepModel m = llama3_405b();
  StepSettings s;
  s.batch_tokens = 2048 * 8192;
  s.seq_len = 8192;
  StepNetwork n = h100_cluster();
  StepLayout l;
  l.tp = 16;
  l.dp = 512;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::tp_domain);
  l.tp = 3;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::tp_heads);
  l.tp = 8;
  l.pp = 128;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::pp_layers);
  l.pp = 16;
  l.micro_batch = 3;  // 2048 / 512 = 4 sequences per replica
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::batch);
  l.micro_batch = 1;
  l.schedule = Schedule::interleaved;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::schedule);  // needs virtual stages
  l.virtual_stages = 2;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::none);
  l.cp = 3;
  EXPECT_EQ(structural_reject(m, s, n, l), Reject::cp_sequence);
}

// Every reason the layout search can refuse a layout is said in words with its numbers: each
// reason, given a layout it would refuse, gets a sentence of its own that names a figure (a
// degree, a count, bytes, a share or a time; the missing catalog field for offload) and no broken
// number.
TEST(TrainingStep, EveryRejectionReasonIsSaidInWordsWithItsNumbers) {
  LayoutProblem p;
  p.model = llama3_405b();
  p.model.experts = 8;
  p.settings.batch_tokens = 2048 * 8192;
  p.settings.seq_len = 8192;
  p.settings.hbm_bytes = 80e9;
  p.settings.max_bubble = 0.25;
  p.settings.max_comm_ratio = 1;
  p.network = h100_cluster();
  p.network.pod_chips = 4096;
  p.chips = 8192;
  std::set<std::string> messages, ids;
  for (int i = 1; i < kRejects; ++i) {
    StepEval e;
    e.reason = Reject(i);
    e.layout.tp = 16;
    e.layout.pp = 16;
    e.layout.cp = 3;
    e.layout.ep = 3;
    e.layout.dp = 24;
    e.layout.micro_batch = 3;
    e.layout.schedule = Schedule::interleaved;
    e.layout.virtual_stages = 1;
    e.memory.fit_bytes = 95e9;
    e.memory.parts[int(Part::activations)] = 60e9;
    e.memory.largest = Part::activations;
    e.memory.in_flight = 16;
    e.memory.micro_batches = 32;
    e.time.bubble_fraction = 0.32;
    e.time.slowest_comm_s = 2.5;
    e.time.compute_s = 1.25;
    std::string words = reject_message(p, e);
    SCOPED_TRACE(reject_id(Reject(i)));
    EXPECT_GT(words.size(), 30u) << words;
    if (Reject(i) == Reject::offload_link) {  // a figure the catalog lacks: named instead of a number
      EXPECT_NE(words.find("pcie_bytes_per_s"), std::string::npos) << words;
    } else {
      EXPECT_NE(words.find_first_of("0123456789"), std::string::npos) << "names a figure: " << words;
    }
    for (const char* broken : {"nan", "inf", "-0 "}) EXPECT_EQ(words.find(broken), std::string::npos) << words;
    EXPECT_TRUE(messages.insert(words).second) << "a sentence of its own: " << words;
    EXPECT_TRUE(ids.insert(reject_id(Reject(i))).second);
    EXPECT_GT(std::string(reject_title(Reject(i))).size(), 5u);
  }
  EXPECT_EQ(int(messages.size()), kRejects - 1);
  // a GPU has no torus: its tensor parallelism is held to the NVLink domain
  EXPECT_NE(std::string(reject_title(Reject::tp_domain, true)).find("NVLink"), std::string::npos);
  EXPECT_EQ(std::string(reject_title(Reject::tp_domain, true)).find("torus"), std::string::npos);
  EXPECT_EQ(std::string(reject_title(Reject::tp_domain, false)).find("NVLink"), std::string::npos);
}

}  // namespace
