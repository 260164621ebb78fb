// The registry's rows: one per calculator, in the order listings show them, and the one place a
// calculator's name is written down (besides its own file, calculators/NAME.cpp, which defines
// make_NAME). Each row declares that factory here, and registry.cpp makes its table kAll from the
// same rows, so a row cannot name a calculator without a factory (it would not link) and a factory
// cannot be listed twice. The test Registry.EveryCalculatorFileIsARowWithBookCases fails on a
// calculator file without a row, or a row without book cases.
#pragma once
#include "schema/schema.hpp"

// Applies ROW to each calculator's name, in the registry's order (an X-macro: ggml's and LLVM's
// way of keeping one list that several tables are made from).
#define SCALELAB_EACH_CALCULATOR(ROW) \
  ROW(chip)                           \
  ROW(roofline)                       \
  ROW(transfer)                       \
  ROW(sharding)                       \
  ROW(collective)                     \
  ROW(sharded_matmul)                 \
  ROW(prefill)                        \
  ROW(decode)                         \
  ROW(serving)                        \
  ROW(transformer)                    \
  ROW(training_memory)                \
  ROW(training_comm)                  \
  ROW(training_run)                   \
  ROW(compute_budget)                 \
  ROW(local_inference)                \
  ROW(finetune)

namespace scalelab {

// make_chip(), make_roofline(), …: one factory per row.
#define SCALELAB_DECLARE_FACTORY(NAME) Calculator make_##NAME();
SCALELAB_EACH_CALCULATOR(SCALELAB_DECLARE_FACTORY)
#undef SCALELAB_DECLARE_FACTORY

}  // namespace scalelab
