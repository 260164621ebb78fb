// The schemas as JSON text (scalelab/engine.hpp: calculators_json, calculator_json,
// object_fields_json): `scalelab list --json`, GET /api/v1/calculators and the labs' controls.
#include "calculators/registry.hpp"
#include "core/json_text.hpp"
#include "scalelab/engine.hpp"
#include "schema/object_fields.hpp"
#include "schema/schema.hpp"

namespace scalelab {
namespace {

const char* type_name(Type t) {
  switch (t) {
    case Type::number: return "number";
    case Type::integer: return "integer";
    case Type::boolean: return "boolean";
    case Type::choice: return "choice";
    case Type::text: return "text";
    case Type::chip: return "chip";
    case Type::model: return "model";
    case Type::object: return "object";
    case Type::map: return "map";
    case Type::list: return "list";
    case Type::bool_or_list: return "bool_or_list";
    case Type::overrides: return "overrides";
  }
  return "unknown";
}

const char* scale_name(Scale s) {
  switch (s) {
    case Scale::linear: return "linear";
    case Scale::log: return "log";
    case Scale::choice: return "choice";
  }
  return "linear";
}

}  // namespace

namespace {

// Schemas are written as text, key by key, in the order (and with the bytes) json::dump gave the
// json objects they were built as before: no tree to build, dump and free on a lab's first call.
class SchemaWriter {
 public:
  explicit SchemaWriter(std::string& out) : out_(out) {}

  void param(const Param& p) {
    open('{');
    text("name", p.name);
    text("label", p.label);
    text("type", type_name(p.type));
    text("unit", p.unit);
    key("default");
    append_text(p.default_value, out_);
    if (p.default_by_chip_kind.is_object()) {
      key("default_by_chip_kind");
      append_text(p.default_by_chip_kind, out_);
    }
    if (p.type == Type::number || p.type == Type::integer) {
      number("min", p.min);
      number("max", p.max);
      boolean("min_exclusive", p.min_exclusive);
    }
    if (p.type == Type::list) {
      number("min_items", p.min);
      number("max_items", p.max);
    }
    text("scale", scale_name(p.scale));
    if (!p.choices.empty()) strings("choices", p.choices);
    if (!p.choice_titles.empty()) strings("choice_titles", p.choice_titles);
    text("doc", p.doc);
    boolean("required", p.required);
    if (!p.overrides_of.empty()) text("overrides_of", p.overrides_of);
    if (p.searched) boolean("searched", true);
    if (p.layout_search) boolean("layout_search", true);
    if (!p.fields.empty()) {
      key("fields");
      params(p.fields);
    }
    close('}');
  }

  void params(const std::vector<Param>& list) {
    open('[');
    for (const Param& p : list) item(), param(p);
    close(']');
  }

  void output(const Output& o) {
    open('{');
    text("name", o.name);
    text("unit", o.unit);
    text("label", o.label);
    text("doc", o.doc);
    boolean("nullable", o.nullable);
    if (o.layout_search) boolean("layout_search", true);
    close('}');
  }

  void calculator(const Calculator& c) {
    open('{');
    text("name", c.name);
    text("title", c.title);
    key("chapters");
    open('[');
    for (int chapter : c.chapters) item(), append_integer(chapter, out_);
    close(']');
    text("doc", c.doc);
    key("params");
    params(c.params);
    key("outputs");
    open('[');
    for (const Output& o : c.outputs) item(), output(o);
    close(']');
    close('}');
  }

  // An object or array opened; its members or items follow, and then its close.
  void open(char bracket) {
    out_ += bracket;
    first_ = true;
  }
  void close(char bracket) {
    out_ += bracket;
    first_ = false;
  }
  // The next item of the array being written: a comma before all but the first.
  void item() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  // The next member of the object being written: its "key":, the value to follow.
  void key(std::string_view name) {
    item();
    append_string(name, out_);
    out_ += ':';
  }

 private:
  void text(std::string_view name, std::string_view value) {
    key(name);
    append_string(value, out_);
  }
  void number(std::string_view name, double value) {
    key(name);
    append_double(value, out_);
  }
  void boolean(std::string_view name, bool value) {
    key(name);
    out_ += value ? "true" : "false";
  }
  void strings(std::string_view name, const std::vector<std::string>& list) {
    key(name);
    open('[');
    for (const std::string& s : list) item(), append_string(s, out_);
    close(']');
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace

std::string calculators_json() {
  std::string out;
  SchemaWriter write(out);
  write.open('{');
  write.key("version");
  out += '1';
  write.key("calculators");
  write.open('[');
  for (const Calculator* c : calculators()) write.item(), write.calculator(*c);
  write.close(']');
  write.key("chip_fields");
  write.params(chip_fields());
  write.key("model_fields");
  write.params(model_fields());
  write.close('}');
  return out;
}

std::string calculator_json(std::string_view name) {
  const Calculator* c = find_calculator(name);
  if (!c) return "null";
  std::string out;
  SchemaWriter(out).calculator(*c);
  return out;
}

std::string object_fields_json(std::string_view kind) {
  if (kind != "chip" && kind != "model") return "null";
  std::string out;
  SchemaWriter(out).params(kind == "chip" ? chip_fields() : model_fields());
  return out;
}

}  // namespace scalelab
