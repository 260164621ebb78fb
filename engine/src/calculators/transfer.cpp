// `transfer` (ch 2): moving bytes along one rung of the memory ladder.
#include "models/bandwidth.hpp"
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/topology.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// transfer's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"t_s", "s", "transfer time", "bandwidth time plus latency", false},
    {"t_bandwidth_s", "s", "bandwidth time", "bytes per chip divided by the path's bandwidth", false},
    {"t_latency_s", "s", "latency", "hop latency along the path", false},
    {"bytes_per_s", "bytes/s", "effective rate", "bytes moved per second overall (null for an empty transfer)", true},
    {"bytes_per_chip", "bytes", "bytes per chip", "each chip's share of the bytes", false},
    {"path_bytes_per_s", "bytes/s", "path bandwidth", "bandwidth of the path for one chip", false},
    {"expected_t_s_low", "s", "expected time, short", "the transfer time over the high end of the share published copies over this rung reach (HBM, PCIe or NVLink; null on other rungs or where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected time, long", "the transfer time over the low end of the share published copies over this rung reach (null on other rungs or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published copies the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published copies reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published copies reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the size lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the size that lies outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};
// clang-format on

void compute(const Args& args, Result& r) {
  const Chip& chip = args.chip();
  std::string path = args.str("path");
  if (path != "ici") {
    refuse_if_given(args, "hops", "applies only to path \"ici\"");
    refuse_if_given(args, "links", "applies only to path \"ici\"");
  }
  double bytes = args.num("bytes"), chips = args.num("chips");
  double links = path == "ici" ? args.num("links") : 1;
  double hops = path == "ici" ? args.num("hops") : 0;
  if (path == "ici") check_ici_links(chip, links, "links", r);
  double W = path_bandwidth(chip, path) * links;
  Expr Wx = path == "ici" ? r.sym("k", links) * r.sym("W_{link}", W / links) : r.sym(bandwidth_symbol(path), W);

  Expr per_chip = r.step("Bytes per chip", "b", r.sym("\\text{bytes}", bytes) / r.sym("n", chips), "bytes");
  Expr t_bw = r.step("Bandwidth time", "T_{bw}", per_chip / Wx, "s");
  Expr t_lat = r.sym("T_{lat}", 0);
  if (path == "ici") {
    double hop = chip.need(&Chip::ici_hop_latency_s, "each ICI hop adds this latency");
    t_lat = r.step("Latency", "T_{lat}", r.sym("\\text{hops}", hops) * r.sym("t_{hop}", hop), "s");
  }
  double t = r.step("Transfer time", "T", t_bw + t_lat, "s").value();
  r.out("t_s", t);
  r.out("t_bandwidth_s", t_bw);
  r.out("t_latency_s", t_lat);
  if (t > 0) r.out("bytes_per_s", bytes / t);
  else r.out_null("bytes_per_s");
  r.out("bytes_per_chip", per_chip);
  r.out("path_bytes_per_s", W);
  // the range published copies reach over this rung (data/measurements.json: HBM, PCIe and NVLink)
  const Band* band = t > 0 ? band_for("transfer", "t_s", chip.kind, {{"path", path}}) : nullptr;
  out_expected(band, expected_output(kOutputs, "t_s", "transfer time"), t, r);
  out_band(band, "transfer", chip.kind, {{"bytes", bytes}}, r, band_outputs(kOutputs));
}

}  // namespace

Calculator make_transfer() {
  using namespace params;
  return {"transfer", "Transfer", {2},
          "Time to move bytes along one rung of the memory ladder: PCIe, HBM, VMEM, ICI, DCN, "
          "NVLink, InfiniBand.",
          {params::chip("tpu-v5e"), chip_overrides(),
           number("bytes", "bytes", 0, 1e20, 1e9, "bytes to move (all chips together)"),
           choice("path", bandwidth_paths(), "hbm", "the rung the bytes cross", bandwidth_path_titles()),
           chips(1, "chips moving their share in parallel"),
           integer("hops", "count", 0, 1e4, 1, "ICI hops to the destination (ici only)", Scale::linear),
           integer("links", "count", 1, 64, 1, "ICI links the sender stripes over (ici only; at most the chip's ici_links)",
                   Scale::linear)},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
