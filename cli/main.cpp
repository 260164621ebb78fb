// `scalelab`: the command-line front of the engine.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "scalelab/engine.hpp"
#include "scalelab/server.hpp"
#include "probe.hpp"

namespace {

using json = nlohmann::ordered_json;

std::string read_stdin() {
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

std::string show(const json& value, const std::string& calculator, const std::string& name) {
  if (value.is_number()) {
    std::string unit = scalelab::output_unit(calculator, name);
    std::string text = scalelab::format_quantity(value.get<double>(), unit);
    return text + "   (" + (value.is_number_float() ? scalelab::number_text(value.get<double>()) : value.dump()) + ")";
  }
  return value.dump();
}

void print_text(const std::string& result_json) {
  json r = json::parse(result_json);
  std::printf("%s\n\nOutputs\n", r["calculator"].get<std::string>().c_str());
  for (auto it = r["outputs"].begin(); it != r["outputs"].end(); ++it) {
    if (it->is_object() && it.key() != "flops_per_s") continue;
    std::printf("  %-32s %s\n", it.key().c_str(), show(it.value(), r["calculator"].get<std::string>(), it.key()).c_str());
  }
  std::printf("\nDerivation\n");
  int n = 1;
  for (const auto& s : r["steps"]) {
    std::string unit = s["unit"].get<std::string>();
    std::printf("  %d. %s\n     %s\n     = %s\n     = %s\n", n++, s["label"].get<std::string>().c_str(),
                s["formula"].get<std::string>().c_str(), s["substituted"].get<std::string>().c_str(),
                scalelab::format_quantity(s["value"].get<double>(), unit).c_str());
  }
  for (const auto& w : r["warnings"]) std::printf("\nwarning: %s\n", w.get<std::string>().c_str());
}

int report_error(const char* command, const std::string& name, const scalelab::Evaluation& e);

int run_eval(const std::string& name, std::string input, bool text) {
  if (input == "-") input = read_stdin();
  scalelab::Evaluation e = scalelab::evaluate(name, input);
  if (e.status != scalelab::Status::ok) return report_error("eval", name, e);
  if (text) print_text(e.json);
  else std::printf("%s\n", e.json.c_str());
  return 0;
}

// An error as eval and sweep report it: one line on stderr, the error JSON on stdout.
int report_error(const char* command, const std::string& name, const scalelab::Evaluation& e) {
  std::string where = e.param.empty() ? "" : e.param + ": ";
  std::fprintf(stderr, "scalelab %s %s: %s%s\n", command, name.c_str(), where.c_str(), e.message.c_str());
  std::printf("%s\n", e.json.c_str());
  return e.status == scalelab::Status::internal ? 3 : 2;
}

int run_sweep(const std::string& name, std::string params, std::string spec) {
  if (params == "-" && spec == "-") {
    std::fprintf(stderr, "scalelab sweep %s: only one of the parameters and the sweep can come from stdin (-)\n",
                 name.c_str());
    return 2;
  }
  if (params == "-") params = read_stdin();
  if (spec == "-") spec = read_stdin();
  scalelab::Evaluation e = scalelab::sweep(name, params, spec);
  if (e.status != scalelab::Status::ok) return report_error("sweep", name, e);
  std::printf("%s\n", e.json.c_str());
  return 0;
}

void print_list() {
  json all = json::parse(scalelab::calculators_json());
  for (const auto& c : all["calculators"]) {
    std::printf("%-16s %s\n", c["name"].get<std::string>().c_str(), c["doc"].get<std::string>().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scalelab: the arithmetic of How to Scale Your Model (Austin et al., 2025)"};
  app.require_subcommand(1);

  auto* eval = app.add_subcommand("eval", "evaluate a calculator on a JSON object (or - for stdin)");
  std::string name, input = "{}";
  bool text = false;
  eval->add_option("name", name, "calculator name (see `scalelab list`)")->required();
  eval->add_option("json", input, "parameters as a JSON object, or - to read stdin");
  eval->add_flag("--text", text, "print for people, with the derivation");

  auto* sweep = app.add_subcommand(
      "sweep", "evaluate a calculator, numbers only, over one or two parameters: outputs as arrays");
  std::string sweep_params = "{}", sweep_spec;
  sweep->add_option("name", name, "calculator name (see `scalelab list`)")->required();
  sweep->add_option("params", sweep_params, "base parameters as a JSON object, or - to read stdin")->required();
  sweep->add_option("sweep", sweep_spec,
                    "the sweep as JSON, or - to read stdin: {\"x\": {\"param\": \"batch\", \"from\": 1, "
                    "\"to\": 4096, \"points\": 64}, \"y\": ... (optional), \"outputs\": [...] (optional)}")
      ->required();

  auto* list = app.add_subcommand("list", "calculators and their schemas");
  bool list_json = false;
  list->add_flag("--json", list_json, "print the full schemas as JSON");
  app.add_subcommand("chips", "the chip catalog as JSON");
  app.add_subcommand("models", "the model catalog as JSON");
  app.add_subcommand("bands", "the expected-range bands (data/bands.json) as JSON");
  app.add_subcommand("calibrate", "fit the expected-range bands afresh from the published runs (the text of data/bands.json)");

  auto* probe = app.add_subcommand("probe", "measure this machine's CPU FLOP/s and memory bandwidth");
  scalelab::probe::Options probe_options;
  bool probe_json = false;
  probe->add_flag("--json", probe_json, "print a chip object for scalelab eval '{\"chip\": {...}}'");
  probe->add_flag("--quick", probe_options.quick, "small sizes: a rough figure in under a second");
  probe->add_option("--runs", probe_options.runs, "timed runs after the warm-up (default 5)")
      ->check(CLI::Range(1, 100));

  auto* serve = app.add_subcommand("serve", "serve the course and the JSON API");
  scalelab::ServerOptions options;
  serve->add_option("--host", options.host, "address to bind (default 127.0.0.1, loopback only)");
  serve->add_option("--port", options.port, "port (default 8080; 0 picks a free one)")
      ->check(CLI::Range(0, 65535));
  serve->add_option("--root", options.root, "folder of the built course (default web/dist)");
  options.threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
  serve->add_option("--threads", options.threads, "threads running the connections (default: one per core)")
      ->check(CLI::Range(1, 256));
  serve->add_option("--request-timeout", options.request_timeout_s,
                    "seconds a client has to send a whole request, and an idle connection stays open (default 10)")
      ->check(CLI::Range(1, 3600));

  CLI11_PARSE(app, argc, argv);

  if (eval->parsed()) return run_eval(name, input, text);
  if (sweep->parsed()) return run_sweep(name, sweep_params, sweep_spec);
  if (list->parsed()) {
    if (list_json) std::printf("%s\n", scalelab::calculators_json().c_str());
    else print_list();
    return 0;
  }
  if (probe->parsed()) {
    scalelab::probe::Report report = scalelab::probe::run(probe_options);
    if (probe_json) std::printf("%s\n", scalelab::probe::chip_json(report).dump(1).c_str());
    else std::printf("%s", scalelab::probe::text(report).c_str());
    return 0;
  }
  if (app.got_subcommand("chips")) {
    std::printf("%s\n", scalelab::chips_json().c_str());
    return 0;
  }
  if (app.got_subcommand("models")) {
    std::printf("%s\n", scalelab::models_json().c_str());
    return 0;
  }
  if (app.got_subcommand("bands")) {
    std::printf("%s\n", scalelab::bands_json().c_str());
    return 0;
  }
  if (app.got_subcommand("calibrate")) {
    try {
      std::printf("%s\n", scalelab::calibrate_json().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scalelab calibrate: %s\n", e.what());
      return 3;
    }
    return 0;
  }
  return scalelab::serve(options, [&](int port) {
    std::printf("scalelab: serving %s on http://%s:%d\n", options.root.c_str(), options.host.c_str(), port);
    std::fflush(stdout);
  });
}
