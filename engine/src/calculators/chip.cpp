// `chip` (ch 2, 12): a chip's catalog figures and what follows from them.
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/topology.hpp"
#include "schema/object_fields.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// chip's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"memory_name", "", "memory", "the chip's memory as a reader names it: HBM, GDDR6X memory, unified LPDDR5 memory, DDR5 system RAM", false},
    {"memory_rung", "", "memory rung", "the chip's memory as a rung of the memory ladder (the title of the path hbm)", false},
    {"weight_formats", "", "weight formats it runs", "the weight formats some runtime runs on this chip (data/formats.json runs_on)", false},
    {"kv_formats", "", "KV-cache formats it runs", "the KV-cache formats some runtime runs on this chip (data/formats.json runs_on)", false},
    {"adapter_formats", "", "formats QLoRA trains over", "the weight formats some runtime on this chip trains LoRA adapters over, frozen (QLoRA)", false},
    {"critical_intensity", "FLOPs/byte", "critical intensity", "bf16 FLOP/s divided by device-memory bandwidth", true},
    {"critical_intensity_int8", "FLOPs/byte", "critical intensity (int8)", "int8 FLOP/s divided by device-memory bandwidth", true},
    {"critical_intensity_fp8", "FLOPs/byte", "critical intensity (fp8)", "fp8 FLOP/s divided by device-memory bandwidth", true},
    {"ici_axis_bytes_per_s", "bytes/s", "ICI bandwidth per axis", "two links, both directions of one wrapped axis", true},
    {"ici_critical_intensity", "FLOPs/byte", "ICI critical intensity", "bf16 FLOP/s divided by the ICI axis bandwidth", true},
    {"ici_egress_bytes_per_s", "bytes/s", "ICI egress", "one link's bandwidth times the links per chip", true},
    {"pod_flops_per_s", "FLOP/s", "pod FLOP/s", "bf16 FLOP/s of a whole pod", true},
    {"pod_hbm_bytes", "bytes", "pod memory", "HBM of a whole pod", true},
    {"pod_hosts", "count", "hosts per pod", "chips per pod divided by chips per host", true},
    {"pod_cores", "count", "cores per pod", "TensorCores of a whole pod", true},
    {"dcn_critical_tokens", "tokens", "DCN critical tokens", "bf16 FLOP/s divided by the DCN bandwidth", true},
    {"flops_per_s_per_core", "FLOP/s", "FLOP/s per core", "bf16 FLOP/s of one TensorCore", true},
    {"hbm_to_pcie_ratio", "ratio", "memory to PCIe ratio", "how much faster device memory is than PCIe", true},
    {"vmem_to_hbm_ratio", "ratio", "VMEM to memory ratio", "how much faster VMEM is than HBM", true},
    {"node_nvlink_bytes_per_s", "bytes/s", "node NVLink bandwidth", "NVLink bandwidth of all GPUs in a node", true},
    {"flops_per_usd", "FLOPs/usd", "FLOPs per dollar", "bf16 FLOPs bought per dollar at the catalog price", true},
    {"mxu_macs", "count", "MACs per MXU", "multiply-accumulate units in one MXU", true},
    {"mxu_flops_per_cycle", "FLOPs", "MXU FLOPs per cycle", "FLOPs one MXU does per clock cycle", true},
    {"mxu_flops_per_s", "FLOP/s", "MXU FLOP/s", "FLOP/s of one MXU", true},
    {"mxus", "count", "MXUs", "MXUs per chip", true},
    {"mxu_peak_flops_per_s", "FLOP/s", "MXU peak FLOP/s", "FLOP/s of all MXUs of the chip", true},
    {"vpu_alus_per_core", "count", "VPU ALUs per core", "vector ALUs of one core", true},
    {"vpu_flops_per_s_per_core", "FLOP/s", "VPU FLOP/s per core", "vector FLOP/s of one core", true},
    {"vreg_bytes_per_core", "bytes", "vector registers per core", "bytes of one core's vector registers", true},
    {"vreg_bytes", "bytes", "vector registers", "bytes of all vector registers of the chip", true},
    {"vector_alus", "count", "vector ALUs", "vector ALUs of the chip", true},
    {"vector_flops_per_s", "FLOP/s", "vector FLOP/s", "FLOP/s of the vector units, one op per ALU per cycle", true},
    {"vector_fma_flops_per_cycle", "FLOPs", "vector FMA FLOPs per cycle", "FLOPs per cycle counting a fused multiply-add as two", true},
    {"vector_fma_flops_per_s", "FLOP/s", "vector FMA FLOP/s", "vector FLOP/s counting a fused multiply-add as two", true},
    {"matrix_to_vector_ratio", "ratio", "matrix to vector ratio", "bf16 matrix FLOP/s over vector FLOP/s", true},
    {"implied_clock_hz", "Hz", "implied clock", "clock implied by the fp32 rate and the vector ALUs", true},
    {"tensor_cores", "count", "Tensor Cores", "Tensor Cores of the GPU", true},
    {"warp_schedulers", "count", "warp schedulers", "warp schedulers of the GPU", true},
    {"flops_per_s_per_sm", "FLOP/s", "FLOP/s per SM", "bf16 FLOP/s of one streaming multiprocessor", true},
    {"tensor_core_flops_per_cycle", "FLOPs", "FLOPs per Tensor Core per cycle", "bf16 FLOPs one Tensor Core does per clock cycle", true},
    {"register_bytes_per_sm", "bytes", "registers per SM", "register file bytes of one SM", true},
    {"register_bytes_total", "bytes", "registers in all", "register file bytes of the GPU", true},
    {"smem_bytes_total", "bytes", "shared memory in all", "SMEM bytes of the GPU", true},
    {"node_switch_bytes_per_s", "bytes/s", "NVSwitch bandwidth per node", "switch bandwidth of all NVSwitches of a node", true},
};
// clang-format on

// The chip calculator also returns the resolved chip: each chip field is an output, with the
// field's unit and doc; null where the catalog (or the chip object) leaves the field out. Then
// the rows above.
std::vector<Output> chip_outputs() {
  std::vector<Output> out;
  for (const Param& f : chip_fields()) out.push_back({f.name, f.unit, f.label, f.doc, true});
  std::vector<Output> own = outputs_of(kOutputs);
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

using Opt = std::optional<double>;

Opt product_of(const std::vector<double>& list) {
  if (list.empty()) return std::nullopt;
  double p = 1;
  for (double n : list) p *= n;
  return p;
}

void tpu_units(const Chip& c, Result& r) {
  Opt dim = c.mxu_dim, clock = c.clock_hz, cores = c.cores_per_chip;
  Opt macs = opt_mul(dim, dim);
  Opt per_cycle = macs ? Opt(2 * *macs) : std::nullopt;
  Opt mxu_rate = opt_mul(per_cycle, clock);
  Opt mxus = opt_mul(c.mxus_per_core, cores);
  out_opt(r, "mxu_macs", macs);
  out_opt(r, "mxu_flops_per_cycle", per_cycle);
  out_opt(r, "mxu_flops_per_s", mxu_rate);
  out_opt(r, "mxus", mxus);
  out_opt(r, "mxu_peak_flops_per_s", opt_mul(mxu_rate, mxus));
  Opt lanes = product_of(c.vpu_shape);
  Opt alus_per_core = opt_mul(lanes, c.vpu_alus_per_lane);
  out_opt(r, "vpu_alus_per_core", alus_per_core);
  out_opt(r, "vpu_flops_per_s_per_core", opt_mul(alus_per_core, clock));
  Opt vreg_core = opt_mul(opt_mul(c.vregs_per_core, lanes), Opt(4));
  out_opt(r, "vreg_bytes_per_core", vreg_core);
  out_opt(r, "vreg_bytes", opt_mul(vreg_core, cores));
  out_opt(r, "vector_alus", opt_mul(alus_per_core, cores));
}

void gpu_units(const Chip& c, Result& r) {
  Opt sms = c.sms, bf16 = c.flops_if("bf16"), clock = c.clock_hz;
  Opt tensor_cores = opt_mul(sms, c.tensor_cores_per_sm);
  out_opt(r, "tensor_cores", tensor_cores);
  out_opt(r, "warp_schedulers", opt_mul(sms, c.subpartitions_per_sm));
  out_opt(r, "flops_per_s_per_sm", opt_div(bf16, sms));
  out_opt(r, "tensor_core_flops_per_cycle", opt_div(bf16, opt_mul(tensor_cores, clock)));
  Opt regs_sm = opt_mul(opt_mul(c.subpartitions_per_sm, c.registers_per_subpartition),
                        Opt(4));
  out_opt(r, "register_bytes_per_sm", regs_sm);
  out_opt(r, "register_bytes_total", opt_mul(regs_sm, sms));
  out_opt(r, "smem_bytes_total", opt_mul(c.smem_bytes_per_sm, sms));
  out_opt(r, "node_switch_bytes_per_s",
          opt_mul(opt_mul(c.nvswitches_per_node, c.nvswitch_ports),
                  c.nvlink_link_bytes_per_s));
  out_opt(r, "vector_alus", opt_mul(opt_mul(sms, c.subpartitions_per_sm),
                                    c.fp32_cores_per_subpartition));
}

void vector_units(const Chip& c, Result& r) {
  std::optional<json> alus_out = r.outputs.find("vector_alus");
  Opt alus = alus_out && alus_out->is_number() ? Opt(alus_out->get<double>()) : Opt();
  Opt vector_rate = opt_mul(alus, c.clock_hz);
  out_opt(r, "vector_flops_per_s", vector_rate);
  out_opt(r, "vector_fma_flops_per_cycle", opt_mul(alus, Opt(2)));
  out_opt(r, "vector_fma_flops_per_s", opt_mul(vector_rate, Opt(2)));
  out_opt(r, "matrix_to_vector_ratio", opt_div(c.flops_if("bf16"), vector_rate));
  out_opt(r, "implied_clock_hz", opt_div(c.flops_if("fp32"), opt_mul(alus, Opt(2))));
}

void compute(const Args& args, Result& r) {
  const Chip& c = args.chip();
  for (auto it = c.data().begin(); it != c.data().end(); ++it) r.out(it.key(), it.value());
  r.out("topology", topology_facts(c));
  r.out("memory_name", c.memory_name());
  r.out("memory_rung", c.memory_rung());
  r.out("weight_formats", formats_running_on(weight_format_names(), c));
  r.out("kv_formats", formats_running_on(kv_format_names(), c));
  r.out("adapter_formats", formats_running_on(weight_format_names(), c, true));
  Opt bf16 = c.flops_if("bf16"), hbm = c.hbm_bytes_per_s, link = c.ici_link_bytes_per_s;
  Opt axis = link ? Opt(2 * *link) : std::nullopt;
  out_opt(r, "critical_intensity", opt_div(bf16, hbm));
  out_opt(r, "critical_intensity_int8", opt_div(c.flops_if("int8"), hbm));
  out_opt(r, "critical_intensity_fp8", opt_div(c.flops_if("fp8"), hbm));
  out_opt(r, "ici_axis_bytes_per_s", axis);
  out_opt(r, "ici_critical_intensity", opt_div(bf16, axis));
  out_opt(r, "ici_egress_bytes_per_s", opt_mul(link, c.ici_links));
  Opt pod = c.pod_chips;
  out_opt(r, "pod_chips", pod);
  out_opt(r, "pod_flops_per_s", opt_mul(pod, bf16));
  out_opt(r, "pod_hbm_bytes", opt_mul(pod, c.hbm_bytes));
  out_opt(r, "pod_hosts", opt_div(pod, c.host_chips));
  out_opt(r, "pod_cores", opt_mul(pod, c.cores_per_chip));
  out_opt(r, "dcn_critical_tokens", opt_div(bf16, c.dcn_bytes_per_s));
  out_opt(r, "flops_per_s_per_core", opt_div(bf16, c.cores_per_chip));
  out_opt(r, "hbm_to_pcie_ratio", opt_div(hbm, c.pcie_bytes_per_s));
  out_opt(r, "vmem_to_hbm_ratio", opt_div(c.vmem_bytes_per_s, hbm));
  out_opt(r, "node_nvlink_bytes_per_s", opt_mul(c.node_gpus, c.nvlink_bytes_per_s));
  out_opt(r, "node_ib_bytes_per_s", opt_mul(c.node_gpus, c.ib_bytes_per_s));
  Opt price = c.price_per_hour_usd;
  out_opt(r, "flops_per_usd", price && *price > 0 ? opt_div(opt_mul(bf16, Opt(3600)), price) : Opt());
  if (c.is_gpu()) gpu_units(c, r);
  else tpu_units(c, r);
  vector_units(c, r);

  Expr C = r.sym("C_{bf16}", bf16.value_or(0));
  if (bf16 && hbm) {
    r.step(r.log().on() ? "Critical arithmetic intensity (" + c.memory_name() + ")" : std::string(), "I^*",
           C / r.sym("W_{hbm}", *hbm), "FLOPs/byte");
  }
  if (bf16 && axis) {
    r.step("Critical intensity over ICI (one axis, both directions)", "I^*_{ici}",
           C / (2 * r.sym("W_{link}", *link)), "FLOPs/byte");
  }
  if (pod && bf16) r.step("Pod peak", "C_{pod}", r.sym("n_{pod}", *pod) * C, "FLOP/s");
}

}  // namespace

Calculator make_chip() {
  using namespace params;
  return {"chip", "Chip", {2, 12},
          "A chip's catalog figures and the ratios that follow: critical intensities, pod "
          "totals, per-unit rates.",
          {params::chip("tpu-v5e"), chip_overrides()}, compute, chip_outputs()};
}

}  // namespace scalelab
