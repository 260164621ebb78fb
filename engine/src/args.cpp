#include "args.hpp"

#include <cmath>
#include <algorithm>
#include <cctype>

#include "errors.hpp"
#include "format.hpp"

namespace scalelab {

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

namespace {

std::string range_text(const Param& p) {
  std::string lo = (p.min_exclusive ? "> " : "≥ ") + plain(p.min);
  return lo + " and ≤ " + plain(p.max) + (p.unit.empty() || p.unit == "count" ? "" : " " + p.unit);
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw InputError(path, message);
}

json validate_number(const Param& p, const json& v, const std::string& path, bool integer) {
  if (!v.is_number()) {
    fail(path, std::string("must be ") + (integer ? "an integer" : "a number") + " " +
                   range_text(p) + ", got " + type_name(v));
  }
  double x = v.get<double>();
  if (!std::isfinite(x)) fail(path, "must be finite, " + range_text(p));
  if (integer && std::floor(x) != x) {
    fail(path, "must be a whole number " + range_text(p) + ", got " + plain(x));
  }
  bool low = p.min_exclusive ? x <= p.min : x < p.min;
  if (low || x > p.max) fail(path, "must be " + range_text(p) + ", got " + plain(x));
  return v;
}

json validate_object(const std::vector<Param>& fields, const json& v, const std::string& path,
                     bool fill_defaults) {
  if (!v.is_object()) fail(path, "must be an object, got " + type_name(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool known = std::any_of(fields.begin(), fields.end(), [&](const Param& f) { return f.name == it.key(); });
    if (!known) {
      std::vector<std::string> names;
      for (const Param& f : fields) names.push_back(f.name);
      fail(path.empty() ? it.key() : path + "." + it.key(), "unknown parameter; allowed: " + joined(names));
    }
  }
  // Field names are unique, so each is appended without the object's search for an existing key.
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  auto sub = [&](const Param& f) { return path.empty() ? f.name : path + "." + f.name; };
  for (const Param& f : fields) {
    auto given = v.find(f.name);
    if (given != v.end()) {
      members.emplace_back(f.name, validate_value(f, *given, sub(f)));
    } else if (f.required) {
      fail(sub(f), "is required" + (f.doc.empty() ? std::string() : " (" + f.doc + ")"));
    } else if (fill_defaults && !f.default_value.is_null()) {
      members.emplace_back(f.name, f.default_value);
    }
  }
  return out;
}

// A dimension, axis or field name: a letter, then letters, digits or '_' (at most 64).
bool is_name(const std::string& key) {
  if (key.empty() || key.size() > 64 || !std::isalpha(static_cast<unsigned char>(key[0]))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

json validate_map(const Param& p, const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, "must be an object of name → value, got " + type_name(v));
  if (v.empty()) fail(path, "must name at least one entry");
  if (v.size() > 26) fail(path, "may name at most 26 entries");
  json out = json::object();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!is_name(it.key())) {
      fail(path, "names must be letters and digits starting with a letter, got \"" +
                     it.key().substr(0, 40) + "\"");
    }
    out[it.key()] = validate_value(p.fields.at(0), it.value(), path + "." + it.key());
  }
  return out;
}

json validate_list(const Param& p, const json& v, const std::string& path) {
  if (!v.is_array()) fail(path, "must be a list, got " + type_name(v));
  if (v.size() < p.min || v.size() > p.max) {
    fail(path, "must hold between " + plain(p.min) + " and " + plain(p.max) + " items, got " +
                   std::to_string(v.size()));
  }
  json out = json::array();
  for (size_t i = 0; i < v.size(); ++i) {
    out.push_back(validate_value(p.fields.at(0), v[i], path + "[" + std::to_string(i) + "]"));
  }
  return out;
}

json validate_overrides(const Param& p, const json& v, const std::string& path) {
  const auto& fields = p.overrides_of == "chip" ? chip_fields() : model_fields();
  if (!v.is_object()) fail(path, "must be an object of " + p.overrides_of + " fields");
  return validate_object(fields, v, path, false);
}

}  // namespace

json validate_value(const Param& p, const json& v, const std::string& path) {
  switch (p.type) {
    case Type::number:
      return validate_number(p, v, path, false);
    case Type::integer:
      return validate_number(p, v, path, true);
    case Type::boolean:
      if (!v.is_boolean()) fail(path, "must be true or false, got " + type_name(v));
      return v;
    case Type::choice: {
      if (!v.is_string() || std::find(p.choices.begin(), p.choices.end(),
                                       v.get<std::string>()) == p.choices.end()) {
        std::string got = v.is_string() ? "\"" + v.get<std::string>().substr(0, 40) + "\""
                                        : type_name(v);
        fail(path, "must be one of " + joined(p.choices) + ", got " + got);
      }
      return v;
    }
    case Type::text:
      if (!v.is_string()) fail(path, "must be a string, got " + type_name(v));
      if (v.get<std::string>().empty()) fail(path, "must not be empty");
      if (v.get<std::string>().size() > 1000) fail(path, "must be at most 1000 characters");
      return v;
    case Type::chip: {
      if (v.is_string()) {
        if (find_entry(chip_entries(), v.get_ref<const std::string&>())) return v;
        std::vector<std::string> ids;
        for (const CatalogEntry& c : chip_entries()) ids.push_back(c.id);
        fail(path, "unknown chip \"" + v.get<std::string>().substr(0, 40) + "\"; catalog: " +
                       joined(ids) + ", or a chip object");
      }
      if (!v.is_object()) fail(path, "must be a catalog id or a chip object, got " + type_name(v));
      return validate_object(chip_fields(), v, path, false);
    }
    case Type::model: {
      if (v.is_string()) {
        if (find_entry(model_entries(), v.get_ref<const std::string&>())) return v;
        std::vector<std::string> ids;
        for (const CatalogEntry& m : model_entries()) ids.push_back(m.id);
        fail(path, "unknown model \"" + v.get<std::string>().substr(0, 40) + "\"; catalog: " +
                       joined(ids) + ", or a model object");
      }
      if (!v.is_object()) {
        fail(path, "must be a catalog id or a model object, got " + type_name(v));
      }
      return validate_object(model_fields(), v, path, false);
    }
    case Type::object:
      return validate_object(p.fields, v, path, true);
    case Type::map:
      return validate_map(p, v, path);
    case Type::list:
      return validate_list(p, v, path);
    case Type::bool_or_list:
      if (v.is_boolean()) return v;
      if (v.is_array() && v.size() <= 16 &&
          std::all_of(v.begin(), v.end(), [](const json& b) { return b.is_boolean(); })) {
        return v;
      }
      fail(path, "must be true, false, or a list of booleans (one per axis)");
    case Type::overrides:
      return validate_overrides(p, v, path);
  }
  fail(path, "has an unsupported type");
}

Args::Args(const Calculator& calc, const json& input) {
  if (!input.is_object()) {
    throw InputError("", "the input must be a JSON object of parameters, got " + type_name(input));
  }
  for (auto it = input.begin(); it != input.end(); ++it) given_.push_back(it.key());
  values_ = validate_object(calc.params, input, "", true);
  if (values_.contains("chip")) {
    resolve_chip();
  } else if (values_.contains("chip_overrides")) {
    throw InputError("chip_overrides", "needs a chip to override");
  }
  if (values_.contains("model")) {
    resolve_model();
  } else if (values_.contains("model_overrides")) {
    throw InputError("model_overrides", "needs a model to override");
  }
}

namespace {

// The last chip (or model) this thread resolved, with what it was resolved from. A lab asks again
// and again with the same chip object or overrides, and resolving them builds and parses the
// merged object anew; a catalog id without overrides is shared by the catalog itself.
template <typename T>
struct LastResolved {
  json value, overrides;
  std::shared_ptr<const T> resolved;
};

template <typename T, typename Resolve>
std::shared_ptr<const T> resolved_as_last_time(LastResolved<T>& last, const json& value, const json& overrides,
                                               Resolve resolve) {
  if (last.resolved && last.value == value && last.overrides == overrides) return last.resolved;
  std::shared_ptr<const T> resolved = resolve(value, overrides);
  last = {value, overrides, resolved};
  return resolved;
}

}  // namespace

void Args::resolve_chip() {
  thread_local LastResolved<Chip> last;
  chip_ = resolved_as_last_time(last, values_["chip"], values_.value("chip_overrides", json()), shared_chip);
}

void Args::resolve_model() {
  thread_local LastResolved<Model> last;
  model_ = resolved_as_last_time(last, values_["model"], values_.value("model_overrides", json()), shared_model);
}

void Args::set_number(const Param& p, const std::vector<std::string>& path, const std::string& dotted, double value) {
  json checked = validate_value(p, json(value), dotted);
  json* at = &values_;
  for (const std::string& key : path) at = &at->at(key);
  *at = std::move(checked);
}

void Args::resolve_again() {
  if (chip_) resolve_chip();
  if (model_) resolve_model();
}

bool Args::has(std::string_view name) const { return values_.contains(name); }
bool Args::given(std::string_view name) const {
  return std::find(given_.begin(), given_.end(), name) != given_.end();
}

const json& Args::value_of(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw InputError(std::string(name), "is required");
  return *it;
}

double Args::num(std::string_view name) const { return value_of(name).get<double>(); }

std::optional<double> Args::num_if(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->get<double>();
}

const std::string& Args::str(std::string_view name) const { return value_of(name).get_ref<const std::string&>(); }

bool Args::flag(std::string_view name) const { return value_of(name).get<bool>(); }

const json& Args::raw(std::string_view name) const { return value_of(name); }

const Chip& Args::chip() const {
  if (!chip_) throw InputError("chip", "is required: a catalog id or a chip object");
  return *chip_;
}

const Model& Args::model() const {
  if (!model_) throw InputError("model", "is required: a catalog id or a model object");
  return *model_;
}

}  // namespace scalelab
