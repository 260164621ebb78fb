// `sweep`: one calculator over one or two numeric parameters, numbers only, outputs as arrays.
// The base parameters and the spec are parsed and checked once; each point then changes only the
// swept values (validated as a numbers-only evaluate validates them) and is computed like one.
// Columns are collected as numbers and written straight to text.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include "schema/args.hpp"
#include "core/format_words.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/json_text.hpp"
#include "io/pipeline.hpp"
#include "calculators/registry.hpp"
#include "core/result.hpp"
#include "scalelab/engine.hpp"
#include "scalelab/limits.hpp"
#include "scalelab/sweep_columns.hpp"
#include "schema/object_fields.hpp"

namespace scalelab {
namespace {

constexpr std::size_t kMaxWarnings = 16;

struct Axis {
  std::string param;               // as the spec names it: "batch", "matmul.B"
  std::vector<std::string> path;   // its keys: {"matmul", "B"}
  std::vector<double> values;
  std::size_t requested = 0;       // points asked for, before whole-number rounding merged any
  const Param* schema = nullptr;   // the parameter's declaration, for validating each value
  std::vector<std::size_t> order;  // where it stands among the parameters, field by field
};

// A double's bits, to tell values apart exactly (Emscripten's libc++ has no std::bit_cast).
std::uint64_t bits_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

[[noreturn]] void refuse(const std::string& where, const std::string& message) {
  throw InputError(where, message);
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

void only_keys(const json& object, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      refuse(where + "." + it.key().substr(0, 40), "unknown key; allowed: " + joined(allowed));
    }
  }
}

bool is_numeric(const Param& p) { return p.type == Type::number || p.type == Type::integer; }

// The fields a dotted path may step into below a parameter.
const std::vector<Param>* fields_below(const Param& p) {
  if (p.type == Type::object) return &p.fields;
  if (p.type == Type::overrides) return p.overrides_of == "chip" ? &chip_fields() : &model_fields();
  return nullptr;
}

// Numeric parameters of a calculator as a sweep may name them (nested objects as "matmul.B").
void numeric_names(const std::vector<Param>& params, const std::string& prefix, std::vector<std::string>& out) {
  for (const Param& p : params) {
    if (is_numeric(p)) out.push_back(prefix + p.name);
    else if (p.type == Type::object) numeric_names(p.fields, prefix + p.name + ".", out);
  }
}

std::vector<std::string> split_path(const std::string& dotted) {
  std::vector<std::string> keys;
  size_t start = 0;
  for (size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1) {
    keys.push_back(dotted.substr(start, dot - start));
  }
  keys.push_back(dotted.substr(start));
  return keys;
}

// The schema of the parameter a sweep names; refuses names that are unknown or not numeric.
// `order` receives its position in the schema, one index per key.
const Param& swept_param(const Calculator& calc, const std::string& name, const std::string& where,
                         std::vector<std::size_t>& order) {
  std::vector<std::string> numeric;
  numeric_names(calc.params, "", numeric);
  std::string hint = "; numeric parameters of " + calc.name + ": " + joined(numeric);
  const std::vector<Param>* fields = &calc.params;
  const Param* found = nullptr;
  for (const std::string& key : split_path(name)) {
    if (!fields) refuse(where, name.substr(0, 80) + " is not a parameter of " + calc.name + hint);
    auto it = std::find_if(fields->begin(), fields->end(), [&](const Param& p) { return p.name == key; });
    if (it == fields->end()) refuse(where, calc.name + " has no parameter \"" + name.substr(0, 80) + "\"" + hint);
    order.push_back(static_cast<std::size_t>(it - fields->begin()));
    found = &*it;
    fields = fields_below(*found);
  }
  if (!is_numeric(*found)) {
    std::string what = found->type == Type::choice || found->type == Type::boolean ? "a choice" : "not a number";
    refuse(where, name + " is " + what + ", and only numeric parameters can be swept" + hint);
  }
  return *found;
}

double number_at(const json& axis, const std::string& key, const std::string& where) {
  const json& v = axis[key];
  if (!v.is_number()) refuse(where + "." + key, "must be a number, got " + type_name(v));
  return v.get<double>();
}

std::size_t points_of(const json& axis, const std::string& where) {
  if (!axis.contains("points")) refuse(where + ".points", "is required with from and to: a whole number ≥ 1 and ≤ 4096");
  const json& v = axis["points"];
  double n = v.is_number() ? v.get<double>() : 0;
  if (!v.is_number() || std::floor(n) != n || n < 1 || n > kMaxSweepPoints) {
    refuse(where + ".points", "must be a whole number ≥ 1 and ≤ 4096, got " +
                                  (v.is_number() ? plain(n) : type_name(v)));
  }
  return static_cast<std::size_t>(n);
}

// from, to, points and scale → values; integers rounded, repeats dropped.
std::vector<double> range_values(const json& axis, const Param& p, const std::string& where) {
  for (const char* key : {"from", "to"}) {
    if (!axis.contains(key)) refuse(where + "." + key, "is required unless values are given: the range's ends");
  }
  double from = number_at(axis, "from", where), to = number_at(axis, "to", where);
  std::size_t points = points_of(axis, where);
  std::string scale = p.scale == Scale::log ? "log" : "linear";
  if (axis.contains("scale")) {
    const json& s = axis["scale"];
    if (!s.is_string() || (s != "log" && s != "linear")) {
      refuse(where + ".scale", "must be log or linear, got " + (s.is_string() ? "\"" + s.get<std::string>().substr(0, 40) + "\"" : type_name(s)));
    }
    scale = s.get<std::string>();
  }
  if (from > to) refuse(where + ".to", "must be ≥ from (" + plain(from) + "), got " + plain(to));
  if (from == to && points > 1) refuse(where + ".to", "must be > from (" + plain(from) + ") for more than one point");
  if (scale == "log" && from <= 0) refuse(where + ".from", "must be > 0 on a log scale, got " + plain(from));
  std::vector<double> values;
  for (std::size_t i = 0; i < points; ++i) {
    double t = points == 1 ? 0 : static_cast<double>(i) / static_cast<double>(points - 1);
    double v = scale == "log" ? std::exp(std::log(from) + t * (std::log(to) - std::log(from))) : from + t * (to - from);
    if (i == 0) v = from;
    if (i + 1 == points && points > 1) v = to;
    v = p.type == Type::integer ? std::round(v) : canonical(v);
    if (values.empty() || values.back() != v) values.push_back(v);
  }
  return values;
}

std::vector<double> listed_values(const json& list, const std::string& where) {
  if (!list.is_array() || list.empty() || list.size() > kMaxSweepPoints) {
    refuse(where, "must be a list of 1 to 4096 numbers, got " +
                      (list.is_array() ? std::to_string(list.size()) + " items" : type_name(list)));
  }
  std::vector<double> values;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number()) refuse(where + "[" + std::to_string(i) + "]", "must be a number, got " + type_name(list[i]));
    values.push_back(list[i].get<double>());
  }
  return values;
}

Axis read_axis(const Calculator& calc, const json& spec, const std::string& key) {
  std::string where = "sweep." + key;
  const json& axis = spec[key];
  const char* shape = "an axis {\"param\", \"values\": [...]} or {\"param\", \"from\", \"to\", \"points\", \"scale\"}";
  if (!axis.is_object()) refuse(where, std::string("must be ") + shape + ", got " + type_name(axis));
  only_keys(axis, {"param", "values", "from", "to", "points", "scale"}, where);
  if (!axis.contains("param") || !axis["param"].is_string()) {
    refuse(where + ".param", "is required: the name of a numeric parameter of " + calc.name);
  }
  Axis out;
  out.param = axis["param"].get<std::string>();
  out.path = split_path(out.param);
  const Param& p = swept_param(calc, out.param, where + ".param", out.order);
  out.schema = &p;
  bool range = axis.contains("from") || axis.contains("to") || axis.contains("points") || axis.contains("scale");
  if (axis.contains("values") && range) refuse(where, "give either values or from, to and points, not both");
  if (axis.contains("values")) {
    out.values = listed_values(axis["values"], where + ".values");
    out.requested = out.values.size();
  } else if (range) {
    out.values = range_values(axis, p, where);
    out.requested = points_of(axis, where);
  } else {
    refuse(where, std::string("needs values or from, to and points: ") + shape);
  }
  return out;
}

struct Spec {
  Axis x;
  std::optional<Axis> y;
  std::vector<std::string> outputs;  // empty: every output that comes out numeric
};

std::vector<std::string> requested_outputs(const Calculator& calc, const json& list) {
  std::vector<std::string> names;
  for (const Output& o : calc.outputs) names.emplace_back(o.name);
  if (!list.is_array() || list.empty()) {
    refuse("sweep.outputs", "must be a non-empty list of output names of " + calc.name + ": " + joined(names));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = "sweep.outputs[" + std::to_string(i) + "]";
    if (!list[i].is_string()) refuse(where, "must be an output name, got " + type_name(list[i]));
    std::string name = list[i].get<std::string>();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      refuse(where, calc.name + " has no output \"" + name.substr(0, 80) + "\"; outputs: " + joined(names));
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) refuse(where, name + " is listed twice");
    out.push_back(name);
  }
  return out;
}

Spec read_spec(const Calculator& calc, const json& spec) {
  if (!spec.is_object()) refuse("sweep", "must be an object {\"x\": axis, \"y\": axis (optional), \"outputs\": [...] (optional)}, got " + type_name(spec));
  only_keys(spec, {"x", "y", "outputs"}, "sweep");
  if (!spec.contains("x")) refuse("sweep.x", "is required: the axis to sweep");
  Spec out{read_axis(calc, spec, "x"), std::nullopt, {}};
  if (spec.contains("y")) {
    out.y = read_axis(calc, spec, "y");
    if (out.y->param == out.x.param) refuse("sweep.y.param", out.x.param + " is already swept along x");
  }
  std::size_t total = out.x.requested * (out.y ? out.y->requested : 1);
  if (total > kMaxSweepPoints) {
    refuse("sweep", std::to_string(out.x.requested) + " × " + std::to_string(out.y->requested) + " = " +
                        std::to_string(total) + " points; a sweep takes 1 to 4096 points in all");
  }
  if (spec.contains("outputs")) out.outputs = requested_outputs(calc, spec["outputs"]);
  return out;
}

// Writes `value` at the axis's path in `input`, making the objects on the way.
void set_at(json& input, const Axis& axis, double value) {
  json* at = &input;
  for (std::size_t i = 0; i + 1 < axis.path.size(); ++i) {
    json& next = (*at)[axis.path[i]];
    if (!next.is_object()) next = json::object();
    at = &next;
  }
  (*at)[axis.path.back()] = value;
}

// The swept axes in schema order: the order in which a full validation meets them, so a point
// whose values are both refused names the same one a numbers-only evaluate would.
std::vector<const Axis*> in_schema_order(const Spec& spec) {
  std::vector<const Axis*> axes = {&spec.x};
  if (spec.y) axes.push_back(&*spec.y);
  std::sort(axes.begin(), axes.end(), [](const Axis* a, const Axis* b) { return a->order < b->order; });
  return axes;
}

// The validated parameters of each point. The base is validated once, with the first point's
// values; each later point changes only the swept values (Args::set_number). A base refused for
// a swept parameter's own value is not the sweep's error: its points are validated in full until
// one is accepted. A base refused for anything else is the sweep's error.
class PointArgs {
 public:
  PointArgs(const Calculator& calc, const json& base, const Spec& spec)
      : calc_(calc), spec_(spec), input_(base), axes_(in_schema_order(spec)),
        in_overrides_(std::any_of(axes_.begin(), axes_.end(), [](const Axis* a) {
          return a->path.front() == "chip_overrides" || a->path.front() == "model_overrides";
        })) {
    set_all(spec.x.values.front(), spec.y ? spec.y->values.front() : 0);
    try {
      args_.emplace(calc, input_);
      args_->track_reads();
    } catch (const InputError& e) {
      if (!about_an_axis(e)) throw;
    }
  }

  // The Args of the point (x, y), or the InputError that refuses it.
  const Args& at(double x, double y) {
    if (!args_) {
      set_all(x, y);
      args_.emplace(calc_, input_);
      args_->track_reads();
      return *args_;
    }
    // As the constructor: every swept value validated first, then the chip and model resolved.
    for (const Axis* axis : axes_) args_->set_number(*axis->schema, axis->path, axis->param, value_of(*axis, x, y));
    if (in_overrides_) args_->resolve_again();
    return *args_;
  }

 private:
  double value_of(const Axis& axis, double x, double y) const { return &axis == &spec_.x ? x : y; }
  void set_all(double x, double y) {
    for (const Axis* axis : axes_) set_at(input_, *axis, value_of(*axis, x, y));
  }
  bool about_an_axis(const InputError& e) const {
    return std::any_of(axes_.begin(), axes_.end(), [&](const Axis* a) { return e.param == a->param; });
  }

  const Calculator& calc_;
  const Spec& spec_;
  json input_;
  std::vector<const Axis*> axes_;
  bool in_overrides_;  // an axis inside the chip's or model's overrides: resolve them per point
  std::optional<Args> args_;
};

// A column's values, one added per point into room made for every point up front (not zeroed):
// a store by index, where std::vector's push_back stays a call in WebAssembly's -Oz build.
template <class T>
class PointValues {
 public:
  void reserve(std::size_t n) {
    if (n > capacity_) grow(n);
  }
  void add(T value) {
    if (size_ == capacity_) grow(2 * capacity_ + 16);
    data_[size_++] = value;
  }
  std::size_t size() const { return size_; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  void grow(std::size_t n) {
    std::unique_ptr<T[]> more(new T[n]);
    std::copy(data_.get(), data_.get() + size_, more.get());
    data_ = std::move(more);
    capacity_ = n;
  }
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

// One output over the points: floats kept as their canonical doubles, anything else (integers,
// words, lists) as its canonical json; null where the output or the whole point is null. Many
// outputs do not change along a swept axis: a value bit for bit the same as the one before is
// canonicalised and written once (both are pure functions of it), its text copied after that.
class Column {
 public:
  void add_null() {
    if (kept_) kinds_.add(Kind::null);
  }
  // A column that cannot be written (not asked for, or not all numbers where no outputs are
  // asked for) keeps nothing; its values are still checked, a non-finite one an engine fault.
  void drop() {
    kept_ = false;
    kinds_ = {};
    numbers_ = {};
    others_ = {};
  }
  void add_number(double raw, const std::string& calculator, const Output& declared) {
    if (!kept_) {
      if (!std::isfinite(raw)) canonical_number(raw, calculator, declared.name);  // the engine fault
      return;
    }
    if (!has_last_ || bits_of(raw) != bits_of(last_raw_)) {
      last_ = canonical_number(raw, calculator, declared.name);
      last_raw_ = raw;
      has_last_ = true;
    }
    kinds_.add(last_.whole ? Kind::whole : Kind::real);
    numbers_.add(last_.value);
    any_number_ = true;
  }
  // A word: never a number, so a column of words is kept only when asked for.
  void add_word(std::string_view word, const std::string& calculator, std::string_view name) {
    if (kept_) add_other(json(std::string(word)), calculator, name);
  }
  // A value that is not a float (an integer, a word, a list), as its canonical json.
  void add_other(const json& value, const std::string& calculator, std::string_view name) {
    if (!kept_) return check(value, calculator, name);
    json copy = value;
    canonicalise(copy, calculator, name);
    any_number_ = any_number_ || copy.is_number();
    all_numbers_ = all_numbers_ && copy.is_number();
    kinds_.add(Kind::other);
    others_.push_back(std::move(copy));
    if (!all_numbers_ && !asked_) drop();  // never numeric now, and not asked for
  }
  void set_asked(bool asked) { asked_ = asked; }
  void reserve(std::size_t points) {
    if (!kept_) return;
    kinds_.reserve(points);
    numbers_.reserve(points);
  }
  // A number wherever it is not null (and somewhere not null): swept when no outputs are asked for.
  bool numeric() const { return any_number_ && all_numbers_; }
  // Nothing but numbers and nulls: the column can go out as doubles.
  bool numbers_only() const { return all_numbers_; }

  // The column as doubles, one per point, NaN for null: each the number its JSON text reads as
  // (a whole number as its integer, so -0 reads as 0).
  void fill(double* out) const {
    std::size_t number = 0, other = 0;
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      switch (kinds_[i]) {
        case Kind::null: out[i] = std::numeric_limits<double>::quiet_NaN(); break;
        case Kind::whole: out[i] = static_cast<double>(static_cast<std::int64_t>(numbers_[number++])); break;
        case Kind::real: out[i] = numbers_[number++]; break;
        case Kind::other: out[i] = others_[other++].get<double>(); break;
      }
    }
  }

  void write(std::string& out) const {
    out += '[';
    std::size_t number = 0, other = 0;
    // The last number written: its kind, its bits and where its text stands in `out`.
    Kind last_kind = Kind::null;
    std::uint64_t last_bits = 0;
    std::size_t last_at = 0, last_size = 0;
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      if (i > 0) out += ',';
      Kind kind = kinds_[i];
      if (kind == Kind::null) {
        out += "null";
      } else if (kind == Kind::other) {
        append_text(others_[other++], out);
      } else {
        double x = numbers_[number++];
        std::uint64_t bits = bits_of(x);
        if (kind == last_kind && bits == last_bits) {
          out.append(out, last_at, last_size);
        } else {
          std::size_t at = out.size();
          if (kind == Kind::whole) append_integer(static_cast<std::int64_t>(x), out);
          else append_double(x, out);
          last_kind = kind;
          last_bits = bits;
          last_at = at;
          last_size = out.size() - at;
        }
      }
    }
    out += ']';
  }

 private:
  // What canonicalising the value would refuse (a non-finite number), without keeping it.
  static void check(const json& value, const std::string& calculator, std::string_view name) {
    if (value.is_structured()) {
      json copy = value;
      canonicalise(copy, calculator, name);
    }
  }

  enum class Kind : unsigned char { null, whole, real, other };
  bool kept_ = true, asked_ = false;
  PointValues<Kind> kinds_;
  PointValues<double> numbers_;
  std::vector<json> others_;
  bool any_number_ = false, all_numbers_ = true;
  bool has_last_ = false;  // the last float added, and what canonical_number made of it
  double last_raw_ = 0;
  CanonicalNumber last_{0, true};
};

// A warning made from a kind: the kind, its numbers' bits and its argument.
struct WarningKey {
  Warning::Text kind;
  std::array<std::uint64_t, Warning::kMaxNumbers> bits;
  std::string argument;
  bool operator==(const WarningKey&) const = default;
};

class Collector {
 public:
  Collector(const Calculator& calc, const Spec& spec) : calc_(calc), spec_(spec), columns_(calc.outputs.size()) {
    std::size_t points = spec.x.values.size() * (spec.y ? spec.y->values.size() : 1);
    if (!spec.outputs.empty()) {  // else each written if it comes out numeric
      for (Column& column : columns_) column.drop();
      for (const std::string& name : spec.outputs) {
        Column& asked = columns_[declared_index(name)];
        asked = Column();
        asked.set_asked(true);
      }
    }
    for (Column& column : columns_) column.reserve(points);
    errors_.get_ref<json::array_t&>().reserve(points);
  }

  void add(const Outputs& outputs) {
    outputs.check(calc_.name);
    const std::size_t n = columns_.size();
    Column* columns = columns_.data();
    for (std::size_t i = 0; i < n; ++i) {
      const Output& declared = calc_.outputs[i];
      switch (outputs.kind(i)) {
        case Outputs::Kind::number: columns[i].add_number(outputs.number(i), calc_.name, declared); break;
        case Outputs::Kind::word: columns[i].add_word(outputs.word(i), calc_.name, declared.name); break;
        case Outputs::Kind::flag: columns[i].add_other(json(outputs.flag(i)), calc_.name, declared.name); break;
        case Outputs::Kind::other: columns[i].add_other(outputs.other(i), calc_.name, declared.name); break;
        default: columns[i].add_null();
      }
    }
    errors_.push_back(nullptr);
  }
  void refused(const InputError& e) {
    for (Column& column : columns_) column.add_null();
    errors_.push_back({{"status", status_name(Status::bad_input)},
                       {"param", e.param.empty() ? json(nullptr) : json(e.param)},
                       {"message", e.what()}});
    if (!e.field.empty()) errors_.back()["field"] = e.field;
  }
  // Distinct warnings by their text, the first kMaxWarnings kept. A warning made from a kind,
  // numbers and argument already met is skipped before its text is made: they make the same
  // text. Once kMaxWarnings are kept, a warning made from a kind and numbers not met before
  // is counted without its text being made (so two sets of numbers that happen to print alike
  // count as two); a warning given as its text is still told apart by its text.
  void warn(const Warnings& warnings) {
    for (const Warning& w : warnings) {
      if (w.has_kind()) {
        if (!met_.insert(key_of(w)).second) continue;
        if (warnings_.size() == kMaxWarnings) {
          ++more_warnings_;
          continue;
        }
      }
      std::string text = w.text();
      if (seen_.insert(text).second) {
        if (warnings_.size() < kMaxWarnings) warnings_.push_back(std::move(text));
        else ++more_warnings_;
      }
    }
  }

  // {"calculator", "x", "y" (2-D only), "outputs": {name: [one value per point]}, "errors", "warnings"}
  std::string text() const {
    std::string out;
    out.reserve(64 + columns_.size() * errors_.size() * 12);
    write(out, nullptr);
    return out;
  }

  // The same with each column of numbers and nulls as its position c in `values` (c × points on,
  // points doubles, NaN for null) in place of its array.
  std::string header(std::vector<double>& values) const {
    std::string out;
    out.reserve(256 + errors_.size() * 5);
    values.reserve(columns_.size() * errors_.size());
    write(out, &values);
    return out;
  }

 private:
  void write(std::string& out, std::vector<double>* values) const {
    out += "{\"calculator\":";
    append_string(calc_.name, out);
    out += ",\"x\":";
    write_axis(spec_.x, out);
    if (spec_.y) {
      out += ",\"y\":";
      write_axis(*spec_.y, out);
    }
    out += ",\"outputs\":{";
    bool first = true;
    for (std::size_t at : written_outputs()) {
      if (!first) out += ',';
      first = false;
      append_string(calc_.outputs[at].name, out);
      out += ':';
      if (values && columns_[at].numbers_only()) {
        std::size_t points = errors_.size(), c = values->size() / std::max<std::size_t>(points, 1);
        append_integer(static_cast<std::int64_t>(c), out);
        values->resize(values->size() + points);
        columns_[at].fill(values->data() + c * points);
      } else {
        columns_[at].write(out);
      }
    }
    out += "},\"errors\":";
    append_text(errors_, out);
    out += ",\"warnings\":";
    json warnings = warnings_;
    if (more_warnings_ > 0) {
      warnings.push_back("… and " + grouped(double(more_warnings_)) + " more distinct warnings at other points");
    }
    append_text(warnings, out);
    out += '}';
  }

  static void write_axis(const Axis& axis, std::string& out) {
    out += "{\"param\":";
    append_string(axis.param, out);
    out += ",\"values\":[";
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      if (i > 0) out += ',';
      CanonicalNumber n = canonical_number(axis.values[i], "sweep", "");
      if (n.whole) append_integer(static_cast<std::int64_t>(n.value), out);
      else append_double(n.value, out);
    }
    out += "]}";
  }

  // As asked, or every declared output that is a number wherever it is not null; by position.
  std::vector<std::size_t> written_outputs() const {
    std::vector<std::size_t> out;
    if (!spec_.outputs.empty()) {
      for (const std::string& name : spec_.outputs) out.push_back(declared_index(name));
      return out;
    }
    for (std::size_t at = 0; at < columns_.size(); ++at) {
      if (columns_[at].numeric()) out.push_back(at);
    }
    return out;
  }
  std::size_t declared_index(const std::string& name) const {
    auto it = std::find_if(calc_.outputs.begin(), calc_.outputs.end(), [&](const Output& o) { return o.name == name; });
    return static_cast<std::size_t>(it - calc_.outputs.begin());
  }

  const Calculator& calc_;
  const Spec& spec_;
  std::vector<Column> columns_;
  json errors_ = json::array();
  static WarningKey key_of(const Warning& w) {
    WarningKey key{w.kind(), {}, w.argument()};
    for (std::size_t i = 0; i < Warning::kMaxNumbers; ++i) key.bits[i] = bits_of(w.numbers()[i]);
    return key;
  }

  json warnings_ = json::array();
  struct KeyHash {  // warning_hash (result.hpp): its low 32 bits, all WebAssembly's size_t keeps, depend on every bit
    std::size_t operator()(const WarningKey& key) const {
      return static_cast<std::size_t>(warning_hash(key.kind, key.bits, key.argument));
    }
  };
  std::unordered_set<WarningKey, KeyHash> met_;  // the kinds, numbers (bit for bit) and arguments of the warnings met so far
  std::set<std::string, std::less<>> seen_;
  std::size_t more_warnings_ = 0;
};

// `values` null: the sweep as JSON text; else its header, the columns of numbers into `values`.
std::string run_sweep(const Calculator& calc, const json& base, const json& spec_json, std::vector<double>* values) {
  if (!base.is_object()) {
    refuse("", "the parameters must be a JSON object, got " + type_name(base));
  }
  Spec spec = read_spec(calc, spec_json);
  PointArgs points(calc, base, spec);
  Collector collect(calc, spec);
  const std::vector<double> no_y = {0};
  const std::vector<double>& ys = spec.y ? spec.y->values : no_y;
  Result result(calc.outputs);  // one for every point, cleared before each
  result.record_steps = false;
  // A column of words is written only where the spec names it (Column::add_word): no other
  // output's sentence is made at each point.
  result.text_unread.assign(calc.outputs.size(), true);
  for (const std::string& name : spec.outputs) {
    if (auto at = result.outputs.index_of(name)) result.text_unread[*at] = false;
  }
  for (double x : spec.x.values) {
    for (double y : ys) {
      try {
        result.clear();
        calc.compute(points.at(x, y), result);
        collect.add(result.outputs);
        collect.warn(result.warnings);
      } catch (const InputError& e) {
        collect.refused(e);
      }
    }
  }
  return values ? collect.header(*values) : collect.text();
}

// As in evaluate: an InputError is the caller's doing; anything else is an engine fault.
Evaluation sweep_parsed(const Calculator& calc, const json& base, const json& spec, std::vector<double>* values = nullptr) {
  return guarded([&] { return run_sweep(calc, base, spec, values); });
}

Evaluation sweep_into(std::string_view name, std::string_view params_json, std::string_view spec_json,
                      std::vector<double>* values) {
  const Calculator* calc = find_calculator(name);
  if (!calc) return unknown_calculator(name);
  json base, spec;
  if (auto refused = parse_input(params_json, base)) return *refused;
  if (auto refused = parse_input(spec_json, spec, "sweep")) return *refused;
  return sweep_parsed(*calc, base, spec, values);
}

}  // namespace

Evaluation sweep(std::string_view name, std::string_view params_json, std::string_view spec_json) {
  return sweep_into(name, params_json, spec_json, nullptr);
}

SweepColumns sweep_columns(std::string_view name, std::string_view params_json, std::string_view spec_json) {
  SweepColumns out;
  out.header = sweep_into(name, params_json, spec_json, &out.values);
  if (out.header.status != Status::ok) out.values.clear();
  return out;
}

Evaluation sweep_request(std::string_view name, std::string_view request_json) {
  const Calculator* calc = find_calculator(name);
  if (!calc) return unknown_calculator(name);
  json request;
  if (auto refused = parse_input(request_json, request)) return *refused;
  const char* shape = "the request must be a JSON object {\"params\": {...}, \"sweep\": {...}}";
  if (!request.is_object()) return error_result(Status::bad_input, "", std::string(shape) + ", got " + type_name(request));
  for (auto it = request.begin(); it != request.end(); ++it) {
    if (it.key() != "params" && it.key() != "sweep") {
      return error_result(Status::bad_input, it.key().substr(0, 40), std::string("unknown key; ") + shape);
    }
  }
  if (!request.contains("sweep")) return error_result(Status::bad_input, "sweep", std::string("is required: ") + shape);
  return sweep_parsed(*calc, request.value("params", json::object()), request["sweep"]);
}

}  // namespace scalelab
