// `roofline` (ch 1): math time vs byte-moving time for one operation.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "bandwidth.hpp"
#include "calculators.hpp"
#include "common.hpp"
#include "topology.hpp"
#include "../params.hpp"

namespace scalelab {
namespace {

struct Op {
  double flops = 0;
  double bytes = 0;
  std::string flops_formula, flops_sub, bytes_formula, bytes_sub;
  bool is_matmul = false;
  double B = 0, D = 0, F = 0;
};

Op from_matmul(const Args& args) {
  const json& m = args.raw("matmul");
  Op op;
  op.is_matmul = true;
  op.B = m["B"].get<double>();
  op.D = m["D"].get<double>();
  op.F = m["F"].get<double>();
  double a = args.dtype("activation_dtype"), w = args.dtype("weight_dtype"),
         o = args.dtype("output_dtype");
  op.flops = 2 * op.B * op.D * op.F;
  op.bytes = a * op.B * op.D + w * op.D * op.F + o * op.B * op.F;
  op.flops_formula = "2BDF";
  op.flops_sub = "2 \\times " + tex(op.B) + " \\times " + tex(op.D) + " \\times " + tex(op.F);
  op.bytes_formula = "b_x BD + b_w DF + b_o BF";
  op.bytes_sub = tex(a) + " \\cdot " + tex(op.B * op.D) + " + " + tex(w) + " \\cdot " +
                 tex(op.D * op.F) + " + " + tex(o) + " \\cdot " + tex(op.B * op.F);
  return op;
}

// "BD,DF->BF": one letter per dimension; one or two operands.
Op from_einsum(const Args& args) {
  std::string spec = args.str("einsum");
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  auto arrow = spec.find("->");
  if (arrow == std::string::npos) {
    throw InputError("einsum", "must look like \"BD,DF->BF\" (operands, \"->\", output)");
  }
  std::string lhs = spec.substr(0, arrow), out = spec.substr(arrow + 2);
  std::vector<std::string> operands;
  size_t start = 0;
  for (size_t comma; (comma = lhs.find(',', start)) != std::string::npos; start = comma + 1) {
    operands.push_back(lhs.substr(start, comma - start));
  }
  operands.push_back(lhs.substr(start));
  if (operands.size() > 2) throw InputError("einsum", "takes one or two operands");
  const json& dims = args.raw("dims");
  std::set<char> all, in_output(out.begin(), out.end());
  auto size_of = [&](const std::string& term, size_t where) {
    if (term.empty()) throw InputError("einsum", "has an empty operand at character " + std::to_string(where + 1));
    double n = 1;
    for (char c : term) {
      std::string key(1, c);
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        throw InputError("einsum", "dimension names are single letters; '" + key + "' at character " +
                                       std::to_string(spec.find(c) + 1) + " is not");
      }
      if (!dims.contains(key)) throw InputError("dims", "has no size for dimension " + key + " of the einsum");
      n *= dims[key].get<double>();
      all.insert(c);
    }
    return n;
  };
  double a = args.dtype("activation_dtype"), w = args.dtype("weight_dtype"), o = args.dtype("output_dtype");
  Op op;
  std::vector<double> sizes;
  for (size_t i = 0; i < operands.size(); ++i) sizes.push_back(size_of(operands[i], spec.find(operands[i])));
  double out_size = out.empty() ? 1 : size_of(out, arrow + 2);
  for (char c : out) {
    if (std::count(lhs.begin(), lhs.end(), c) == 0) {
      throw InputError("einsum", std::string("output dimension ") + c + " appears in no operand");
    }
  }
  bool contracted = std::any_of(all.begin(), all.end(), [&](char c) { return !in_output.count(c); });
  double product = 1;
  std::string names;
  for (char c : all) {
    product *= dims[std::string(1, c)].get<double>();
    names += c;
  }
  for (auto it = dims.begin(); it != dims.end(); ++it) {
    if (!all.count(it.key()[0]) || it.key().size() != 1) {
      throw InputError("dims." + it.key(), "is not a dimension of the einsum " + spec);
    }
  }
  op.flops = (contracted ? 2 : 1) * product;
  op.flops_formula = contracted ? "2 \\prod_{d} n_d" : "\\prod_{d} n_d";
  op.flops_sub = (contracted ? "2 \\times " : "") + tex(product) + "\\;(" + names + ")";
  op.bytes = a * sizes[0] + (sizes.size() > 1 ? w * sizes[1] : 0) + o * out_size;
  op.bytes_formula = sizes.size() > 1 ? "b_x |X| + b_w |W| + b_o |O|" : "b_x |X| + b_o |O|";
  op.bytes_sub = tex(a) + " \\cdot " + tex(sizes[0]) +
                 (sizes.size() > 1 ? " + " + tex(w) + " \\cdot " + tex(sizes[1]) : "") + " + " +
                 tex(o) + " \\cdot " + tex(out_size);
  return op;
}

Op resolve_op(const Args& args) {
  bool raw = args.given("flops") || args.given("bytes");
  int forms = int(raw) + int(args.given("matmul")) + int(args.given("einsum"));
  if (forms != 1) {
    throw InputError(forms == 0 ? "matmul" : "einsum",
                     "give exactly one of: flops and bytes, matmul {B, D, F}, or einsum with dims");
  }
  if (args.given("dims") && !args.given("einsum")) throw InputError("dims", "only goes with einsum");
  if (raw) {
    for (const char* d : {"activation_dtype", "weight_dtype", "output_dtype"}) {
      refuse_if_given(args, d, "applies to matmul or einsum, not to raw flops and bytes");
    }
    if (!args.given("flops")) throw InputError("flops", "is required with bytes");
    if (!args.given("bytes")) throw InputError("bytes", "is required with flops");
    Op op;
    op.flops = args.num("flops");
    op.bytes = args.num("bytes");
    op.flops_formula = "F";
    op.flops_sub = tex(op.flops);
    op.bytes_formula = "\\text{bytes}";
    op.bytes_sub = tex(op.bytes);
    return op;
  }
  if (args.given("matmul")) return from_matmul(args);
  if (!args.given("dims")) throw InputError("dims", "is required with einsum: a size per dimension");
  return from_einsum(args);
}

void compute(const Args& args, Result& r) {
  const Chip& chip = args.chip();
  std::string path = args.str("bandwidth");
  if (path != "ici") refuse_if_given(args, "links", "applies only to bandwidth \"ici\"");
  std::string cdt = args.str("compute_dtype");
  double C = chip.flops(cdt);
  double links = args.num("links");
  if (path == "ici") check_ici_links(chip, links, "links", r);
  double W = path_bandwidth(chip, path) * (path == "ici" ? links : 1);
  Op op = resolve_op(args);

  std::string Wsym = bandwidth_symbol(path);
  r.step("FLOPs", op.flops_formula, op.flops_sub, op.flops, "FLOPs");
  r.step("Bytes moved", op.bytes_formula, op.bytes_sub, op.bytes, "bytes");
  r.out("flops", op.flops);
  r.out("bytes", op.bytes);
  if (op.bytes > 0) {
    r.out("intensity", r.step("Arithmetic intensity", "I = \\text{FLOPs} / \\text{bytes}",
                              tex(op.flops) + " / " + tex(op.bytes), op.flops / op.bytes, "FLOPs/byte"));
  } else {
    r.out_null("intensity");
  }
  std::string Wsub = path == "ici" && links != 1 ? tex(links) + " \\times " + tex(W / links) : tex(W);
  r.out("critical_intensity", r.step("Critical intensity of the chip", "I^* = C / " + Wsym,
                                     tex(C) + " / " + Wsub, C / W, "FLOPs/byte"));
  double t_math = r.step("Math time", "T_{math} = \\text{FLOPs} / C",
                         tex(op.flops) + " / " + tex(C), op.flops / C, "s");
  double t_comm = r.step("Memory/comms time", "T_{comm} = \\text{bytes} / " + Wsym,
                         tex(op.bytes) + " / " + Wsub, op.bytes / W, "s");
  r.out("t_math_s", t_math);
  r.out("t_comm_s", t_comm);
  r.out("t_lower_s", std::max(t_math, t_comm));
  r.out("t_upper_s", t_math + t_comm);
  std::string bound = t_math >= t_comm ? "compute" : is_memory_path(path) ? "memory" : "comms";
  r.out("bound", bound);
  r.step("Lower bound (perfect overlap)", "T = \\max(T_{math}, T_{comm})",
         "\\max(" + tex(t_math) + ", " + tex(t_comm) + ")", std::max(t_math, t_comm), "s");

  if (!op.is_matmul) {
    r.out_null("crossover_batch");
    r.out_null("critical_batch");
    return;
  }
  double a = args.dtype("activation_dtype"), w = args.dtype("weight_dtype"), o = args.dtype("output_dtype");
  double critical = r.step("Critical batch (B ≪ D, F)", "B^* \\approx b_w C / (2 " + Wsym + ")",
                           tex(w) + " \\times " + tex(C) + " / (2 \\times " + Wsub + ")",
                           w * C / (2 * W), "tokens");
  r.out("critical_batch", critical);
  double denominator = 2 * op.D * op.F / C - (a * op.D + o * op.F) / W;
  if (denominator <= 0) {
    r.out_null("crossover_batch");
    r.warn("No batch size makes this matmul compute-bound: the activation and output bytes "
           "alone outweigh the FLOPs per token at this bandwidth.");
    return;
  }
  double crossover = r.step(
      "Exact crossover batch (every byte counted)",
      "B_{\\times} = \\frac{b_w DF/" + Wsym + "}{2DF/C - (b_x D + b_o F)/" + Wsym + "}",
      "\\frac{" + tex(w * op.D * op.F / W) + "}{" + tex(2 * op.D * op.F / C) + " - " +
          tex((a * op.D + o * op.F) / W) + "}",
      w * op.D * op.F / W / denominator, "tokens");
  r.out("crossover_batch", crossover);
  double off = std::fabs(crossover - critical) / crossover;
  if (off > 0.1) {
    r.warn("B is not ≪ D, F: the B ≈ intensity shortcut (" + plain(canonical(critical)) +
           ") is off from the exact crossover (" + plain(canonical(crossover)) + ") by " +
           std::to_string(static_cast<int>(std::round(off * 100))) + "%.");
  }
}

}  // namespace

Calculator make_roofline() {
  using namespace params;
  Param dim = integer("n", "count", 1, 1e9, nullptr, "dimension size");
  Param matmul = object("matmul",
                        {integer("B", "tokens", 1, 1e9, 512, "batch: tokens per model replica"),
                         integer("D", "count", 1, 1e8, 8192, "contracted dimension (model width)"),
                         integer("F", "count", 1, 1e8, 32768, "output dimension (MLP width)")},
                        "a matmul [B, D] · [D, F] → [B, F]");
  return {"roofline", "Roofline", {1},
          "Whether an operation is limited by math or by moving bytes, and how long it takes.",
          {params::chip("tpu-v5e"), chip_overrides(),
           number("flops", "FLOPs", 0, 1e30, nullptr, "FLOPs of the operation (with bytes)"),
           number("bytes", "bytes", 0, 1e30, nullptr, "bytes moved (with flops)"), matmul,
           text("einsum", nullptr, "an einsum such as \"BD,DF->BF\" (one letter per dimension)"),
           map("dims", dim, "size of each einsum dimension"),
           dtype("activation_dtype", "dtype of the first operand (activations)"),
           dtype("weight_dtype", "dtype of the second operand (weights)"),
           dtype("output_dtype", "dtype of the output"),
           dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
           choice("bandwidth", bandwidth_paths(), "hbm", "which bandwidth the bytes cross"),
           integer("links", "count", 1, 64, 1, "ICI links used (bandwidth ici only; at most the chip's ici_links)", Scale::linear)},
          compute};
}

}  // namespace scalelab
