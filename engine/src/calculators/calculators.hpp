// One factory per calculator. The registry (registry.cpp) lists them in one explicit table.
#pragma once
#include "schema/schema.hpp"

namespace scalelab {

Calculator make_chip();
Calculator make_roofline();
Calculator make_transfer();
Calculator make_sharding();
Calculator make_collective();
Calculator make_sharded_matmul();
Calculator make_prefill();
Calculator make_decode();
Calculator make_serving();
Calculator make_transformer();
Calculator make_training_memory();
Calculator make_training_comm();
Calculator make_training_run();
Calculator make_compute_budget();
Calculator make_local_inference();
Calculator make_finetune();

}  // namespace scalelab
