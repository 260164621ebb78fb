// `roofline` (ch 1): math time vs byte-moving time for one operation.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "models/expected.hpp"
#include "core/format_words.hpp"
#include "models/bandwidth.hpp"
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/topology.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// roofline's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"flops", "FLOPs", "FLOPs", "floating-point operations of the operation", false},
    {"bytes", "bytes", "bytes moved", "bytes the operation reads and writes across the chosen bandwidth", false},
    {"intensity", "FLOPs/byte", "arithmetic intensity", "FLOPs per byte moved (null when no bytes move)", true},
    {"critical_intensity", "FLOPs/byte", "critical intensity", "the chip's FLOP/s divided by the bandwidth: the intensity needed to be compute-bound", false},
    {"t_math_s", "s", "math time", "FLOPs divided by the chip's FLOP/s at the compute dtype", false},
    {"t_comm_s", "s", "memory/comms time", "bytes divided by the bandwidth", false},
    {"t_lower_s", "s", "time with full overlap", "the larger of math and memory/comms time", false},
    {"t_upper_s", "s", "time with no overlap", "math time plus memory/comms time", false},
    {"bound", "", "bound", "what limits the operation: compute, memory or comms", false},
    {"expected_t_lower_s_low", "s", "expected time, short", "the lower bound over the high end of the share published large matmuls on this kind of chip reach (null off device memory, or where no runs calibrate it)", true},
    {"expected_t_lower_s_high", "s", "expected time, long", "the lower bound over the low end of the share published large matmuls on this kind of chip reach (null off device memory, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published large matmuls the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published large matmuls reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published large matmuls reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"crossover_batch", "tokens", "exact crossover batch", "batch at which math and byte time are equal with every byte counted (null if none, or not a matmul)", true},
    {"critical_batch", "tokens", "critical batch", "the B ≪ D, F shortcut for the crossover batch (matmul only)", true},
};
// clang-format on

struct Op {
  Expr flops = 0;
  Expr bytes = 0;
  bool is_matmul = false;
  double B = 0, D = 0, F = 0;
};

Op from_matmul(const Args& args, const Steps& log) {
  const json& m = args.raw("matmul");
  Op op;
  op.is_matmul = true;
  op.B = m["B"].get<double>();
  op.D = m["D"].get<double>();
  op.F = m["F"].get<double>();
  double a = args.dtype("activation_dtype"), w = args.dtype("weight_dtype"),
         o = args.dtype("output_dtype");
  Expr B = log.sym("B", op.B), D = log.sym("D", op.D), F = log.sym("F", op.F);
  op.flops = 2 * B * D * F;
  op.bytes = log.sym("b_x", a) * B * D + log.sym("b_w", w) * D * F + log.sym("b_o", o) * B * F;
  return op;
}

// "BD,DF->BF": one letter per dimension; one or two operands.
Op from_einsum(const Args& args, const Steps& log) {
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
  Expr product = 1;
  bool first = true;
  for (char c : all) {
    Expr n = log.sym(std::string(1, c), dims[std::string(1, c)].get<double>());
    product = first ? n : product * n;
    first = false;
  }
  for (auto it = dims.begin(); it != dims.end(); ++it) {
    if (!all.count(it.key()[0]) || it.key().size() != 1) {
      throw InputError("dims." + it.key(), "is not a dimension of the einsum " + spec);
    }
  }
  op.flops = contracted ? 2 * product : product;
  Expr bytes = log.sym("b_x", a) * log.sym("|X|", sizes[0]);
  if (sizes.size() > 1) bytes = bytes + log.sym("b_w", w) * log.sym("|W|", sizes[1]);
  op.bytes = bytes + log.sym("b_o", o) * log.sym("|O|", out_size);
  return op;
}

// Half a byte, one int4 element: the least an operation can move. Smaller positive byte
// counts mean nothing physically and would make the intensity overflow.
constexpr double kLeastBytes = 0.5;

Op resolve_op(const Args& args, const Steps& log) {
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
    double raw_bytes = args.num("bytes");
    if (raw_bytes > 0 && raw_bytes < kLeastBytes) {
      throw InputError("bytes", "must be 0 or at least 0.5 (one int4 element), got " + plain(raw_bytes));
    }
    op.flops = log.sym("F", args.num("flops"));
    op.bytes = log.sym("\\text{bytes}", raw_bytes);
    return op;
  }
  if (args.given("matmul")) return from_matmul(args, log);
  if (!args.given("dims")) throw InputError("dims", "is required with einsum: a size per dimension");
  return from_einsum(args, log);
}

void compute(const Args& args, Result& r) {
  const Chip& chip = args.chip();
  std::string path = args.str("bandwidth");
  if (path != "ici") refuse_if_given(args, "links", "applies only to bandwidth \"ici\"");
  double C = compute_flops(args, r);
  double links = args.num("links");
  if (path == "ici") check_ici_links(chip, links, "links", r);
  double W = path_bandwidth(chip, path) * (path == "ici" ? links : 1);
  Op op = resolve_op(args, r.log());

  std::string Wsym = bandwidth_symbol(path);
  Expr flops = r.step("FLOPs", "\\text{FLOPs}", op.flops, "FLOPs");
  Expr bytes = r.step("Bytes moved", "\\text{bytes}", op.bytes, "bytes");
  r.out("flops", flops);
  r.out("bytes", bytes);
  if (bytes.value() > 0) {
    r.out("intensity", r.step("Arithmetic intensity", "I", flops / bytes, "FLOPs/byte"));
  } else {
    r.out_null("intensity");
  }
  Expr Cx = r.sym("C", C);
  Expr Wx = path == "ici" && links != 1 ? r.sym("k", links) * r.sym("W_{link}", W / links) : r.sym(Wsym, W);
  r.out("critical_intensity", r.step("Critical intensity of the chip", "I^*", Cx / Wx, "FLOPs/byte"));
  Expr t_math = r.step("Math time", "T_{math}", flops / Cx, "s");
  Expr t_comm = r.step("Memory/comms time", "T_{comm}", bytes / Wx, "s");
  r.out("t_math_s", t_math);
  r.out("t_comm_s", t_comm);
  r.out("t_lower_s", std::max(t_math.value(), t_comm.value()));
  r.out("t_upper_s", t_math.value() + t_comm.value());
  std::string bound = t_math.value() >= t_comm.value() ? "compute" : is_memory_path(path) ? "memory" : "comms";
  r.out("bound", bound);
  r.step("Lower bound (perfect overlap)", "T", max(t_math, t_comm), "s");
  // The range published matmuls reach of the bound: measured from device memory, so only on the hbm path.
  const Band* band = path == "hbm" ? band_for("roofline", "t_lower_s", chip.kind) : nullptr;
  out_expected(band, expected_output(kOutputs, "t_lower_s", "time"),
               std::max(t_math.value(), t_comm.value()), r);
  out_band(band, "roofline", chip.kind, {{"flops", flops.value()}}, r, band_outputs(kOutputs));

  if (!op.is_matmul) {
    r.out_null("crossover_batch");
    r.out_null("critical_batch");
    return;
  }
  double a = args.dtype("activation_dtype"), w = args.dtype("weight_dtype"), o = args.dtype("output_dtype");
  Expr ax = r.sym("b_x", a), wx = r.sym("b_w", w), ox = r.sym("b_o", o);
  double critical = r.step("Critical batch (B ≪ D, F)", "B^* \\approx", wx * Cx / (2 * Wx), "tokens").value();
  r.out("critical_batch", critical);
  Expr D = r.sym("D", op.D), F = r.sym("F", op.F);
  Expr denominator = 2 * D * F / Cx - (ax * D + ox * F) / Wx;
  if (denominator.value() <= 0) {
    r.out_null("crossover_batch");
    r.warn("No batch size makes this matmul compute-bound: the activation and output bytes "
           "alone outweigh the FLOPs per token at this bandwidth.");
    return;
  }
  double crossover = r.step("Exact crossover batch (every byte counted)", "B_{\\times}",
                            frac(wx * D * F / Wx, denominator), "tokens").value();
  r.out("crossover_batch", crossover);
  double off = std::fabs(crossover - critical) / crossover;
  if (off > 0.1) {
    r.warn("B is not ≪ D, F: the B ≈ intensity shortcut (" + count_words(critical, "tokens") +
           ") is off from the exact crossover (" + count_words(crossover, "tokens") + ") by " +
           std::to_string(static_cast<int>(std::round(off * 100))) + "%.");
  }
}

}  // namespace

Calculator make_roofline() {
  using namespace params;
  Param dim = integer("n", "count", 1, kMaxDimensionSize, nullptr, "dimension size");
  Param matmul = object("matmul",
                        {integer("B", "tokens", 1, 1e9, 512, "batch: tokens per model replica"),
                         integer("D", "count", 1, 1e8, 8192, "contracted dimension (model width)"),
                         integer("F", "count", 1, 1e8, 32768, "output dimension (MLP width)")},
                        "a matmul [B, D] · [D, F] → [B, F]");
  return {"roofline", "Roofline", {1},
          "Whether an operation is limited by math or by moving bytes, and how long it takes.",
          {params::chip("tpu-v5e"), chip_overrides(),
           number("flops", "FLOPs", 0, 1e30, nullptr, "FLOPs of the operation (with bytes)"),
           number("bytes", "bytes", 0, 1e30, nullptr,
                  "bytes moved (with flops): 0, or at least 0.5 (one int4 element)"), matmul,
           text("einsum", nullptr, "an einsum such as \"BD,DF->BF\" (one letter per dimension)"),
           map("dims", dim, "size of each einsum dimension"),
           dtype("activation_dtype", "dtype of the first operand (activations)"),
           dtype("weight_dtype", "dtype of the second operand (weights)"),
           dtype("output_dtype", "dtype of the output"),
           dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
           choice("bandwidth", bandwidth_paths(), "hbm", "which bandwidth the bytes cross",
                  bandwidth_path_titles()),
           integer("links", "count", 1, 64, 1, "ICI links used (bandwidth ici only; at most the chip's ici_links)", Scale::linear)},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
