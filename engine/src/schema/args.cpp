#include "schema/args.hpp"

#include <cmath>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/json_text.hpp"
#include "schema/object_fields.hpp"

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

// Where a value sits in the input ("matmul.B", "dims[2]"), spelled out only for a message: a
// valid input builds no path string at all.
class Path {
 public:
  explicit Path(std::string_view text) : key_(text) {}
  Path(const Path& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, std::size_t index) : parent_(&parent), index_(index), is_index_(true) {}

  std::string text() const {
    if (!parent_) return std::string(key_);
    std::string above = parent_->text();
    if (is_index_) return above + "[" + std::to_string(index_) + "]";
    return above.empty() ? std::string(key_) : above + "." + std::string(key_);
  }

 private:
  const Path* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

[[noreturn]] void fail(const Path& path, const std::string& message) {
  throw InputError(path.text(), message);
}

json validated(const Param& p, json&& v, const Path& path);

void check_number(const Param& p, const json& v, const Path& path, bool integer) {
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
}

[[noreturn]] void refuse_unknown(const std::vector<Param>& fields, const Path& path, const std::string& key) {
  std::vector<std::string> names;
  for (const Param& f : fields) names.push_back(f.name);
  fail(Path(path, key), "unknown parameter; allowed: " + joined(names));
}

// Where each field stands among the given members (absent: not given); a member no field names
// is refused, the first in the order given. Each field's name is compared with the members' keys,
// each taken as a view once: the browser's -Oz engine makes std::string's size and data calls,
// two per name compared, and a search of the fields per member compared each field's name again.
constexpr std::size_t absent = static_cast<std::size_t>(-1);
std::vector<std::size_t> given_positions(const std::vector<Param>& fields, const json::object_t& members,
                                         const Path& path) {
  // Left unset until written (a std::array of string_view would clear its 1 KB on every call);
  // a request of more members than the array holds (one no schema could take) uses the heap.
  struct Key {
    const char* data;
    std::size_t size;
    std::string_view view() const { return {data, size}; }
  };
  std::array<Key, 64> on_stack;
  std::vector<Key> on_heap;
  const std::size_t count = members.size();
  Key* keys = on_stack.data();
  if (count > on_stack.size()) {
    on_heap.resize(count);
    keys = on_heap.data();
  }
  for (std::size_t m = 0; m < count; ++m) {
    const std::string& key = (members.begin() + static_cast<std::ptrdiff_t>(m))->first;
    keys[m] = {key.data(), key.size()};
  }
  std::vector<std::size_t> at(fields.size(), absent);
  std::size_t matched = 0;
  for (std::size_t i = 0; i < fields.size() && matched < count; ++i) {
    const std::string_view name = fields[i].name;
    for (std::size_t m = 0; m < count; ++m) {
      if (same_name(keys[m].view(), name)) {
        at[i] = m;
        ++matched;
        break;
      }
    }
  }
  if (matched < count) {
    for (std::size_t m = 0; m < count; ++m) {
      auto names_it = [&](const Param& f) { return same_name(f.name, keys[m].view()); };
      if (std::none_of(fields.begin(), fields.end(), names_it)) refuse_unknown(fields, path, std::string(keys[m].view()));
    }
  }
  return at;
}

// The object's fields in schema order, each validated and moved out of `v` (nothing is copied
// but the defaults). `given`, when not null, receives which of the object's members the caller
// gave (the others are defaults), in the members' order.
json validated_object(const std::vector<Param>& fields, json&& v, const Path& path, bool fill_defaults,
                      std::vector<bool>* given = nullptr) {
  if (!v.is_object()) fail(path, "must be an object, got " + type_name(v));
  auto& given_members = v.get_ref<json::object_t&>();
  const std::vector<std::size_t> at = given_positions(fields, given_members, path);
  if (given) given->reserve(fields.size());
  // Field names are unique, so each is appended without the object's search for an existing key.
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  if (fill_defaults) members.reserve(fields.size());  // a partial object (overrides) names few
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Param& f = fields[i];
    if (at[i] != absent) {
      if (given) given->push_back(true);
      members.emplace_back(f.name, validated(f, std::move((given_members.begin() + static_cast<std::ptrdiff_t>(at[i]))->second), Path(path, f.name)));
    } else if (f.required) {
      fail(Path(path, f.name), "is required" + (f.doc.empty() ? std::string() : " (" + f.doc + ")"));
    } else if (fill_defaults && !f.default_value.is_null()) {
      if (given) given->push_back(false);
      members.emplace_back(f.name, f.default_value);
    } else if (fill_defaults && f.default_by_chip_kind.is_object()) {
      if (given) given->push_back(false);
      members.emplace_back(f.name, nullptr);  // its place, filled once the chip is resolved (Args)
    }
  }
  // Emptied now: nlohmann's destructor of a non-empty object first moves every member onto a
  // stack it allocates (5 % of a numbers-only serving evaluation with the Args's own values).
  given_members.clear();
  return out;
}

// Maps and lists keep their keys and order: each value is validated in place.
json validated_map(const Param& p, json&& v, const Path& path) {
  if (!v.is_object()) fail(path, "must be an object of name → value, got " + type_name(v));
  if (v.empty()) fail(path, "must name at least one entry");
  if (v.size() > 26) fail(path, "may name at most 26 entries");
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!is_name(it.key())) {
      fail(path, "names must be letters and digits starting with a letter, got \"" +
                     it.key().substr(0, 40) + "\"");
    }
    it.value() = validated(p.fields.at(0), std::move(it.value()), Path(path, it.key()));
  }
  return std::move(v);
}

json validated_list(const Param& p, json&& v, const Path& path) {
  if (!v.is_array()) fail(path, "must be a list, got " + type_name(v));
  if (v.size() < p.min || v.size() > p.max) {
    fail(path, "must hold between " + plain(p.min) + " and " + plain(p.max) + " items, got " +
                   std::to_string(v.size()));
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = validated(p.fields.at(0), std::move(v[i]), Path(path, i));
  return std::move(v);
}

json validated_overrides(const Param& p, json&& v, const Path& path) {
  const auto& fields = p.overrides_of == "chip" ? chip_fields() : model_fields();
  if (!v.is_object()) fail(path, "must be an object of " + p.overrides_of + " fields");
  return validated_object(fields, std::move(v), path, false);
}

void check_choice(const Param& p, const json& v, const Path& path) {
  auto is_choice = [&](const std::string& c) { return same_name(c, v.get_ref<const std::string&>()); };
  if (!v.is_string() || std::none_of(p.choices.begin(), p.choices.end(), is_choice)) {
    std::string got = v.is_string() ? "\"" + v.get<std::string>().substr(0, 40) + "\"" : type_name(v);
    fail(path, "must be one of " + joined(p.choices) + ", got " + got);
  }
}

void check_text(const json& v, const Path& path) {
  if (!v.is_string()) fail(path, "must be a string, got " + type_name(v));
  if (v.get_ref<const std::string&>().empty()) fail(path, "must not be empty");
  if (v.get_ref<const std::string&>().size() > 1000) fail(path, "must be at most 1000 characters");
}

bool is_bool_or_list(const json& v) {
  if (v.is_boolean()) return true;
  return v.is_array() && v.size() <= 16 &&
         std::all_of(v.begin(), v.end(), [](const json& b) { return b.is_boolean(); });
}

json validated(const Param& p, json&& v, const Path& path) {
  switch (p.type) {
    case Type::number:
    case Type::integer:
      check_number(p, v, path, p.type == Type::integer);
      return std::move(v);
    case Type::boolean:
      if (!v.is_boolean()) fail(path, "must be true or false, got " + type_name(v));
      return std::move(v);
    case Type::choice:
      check_choice(p, v, path);
      return std::move(v);
    case Type::text:
      check_text(v, path);
      return std::move(v);
    case Type::chip:
      if (v.is_string()) {
        if (find_entry(chip_entries(), v.get_ref<const std::string&>())) return std::move(v);
        std::vector<std::string> ids;
        for (const CatalogEntry& c : chip_entries()) ids.push_back(c.id);
        fail(path, "unknown chip \"" + v.get<std::string>().substr(0, 40) + "\"; catalog: " +
                       joined(ids) + ", or a chip object");
      }
      if (!v.is_object()) fail(path, "must be a catalog id or a chip object, got " + type_name(v));
      return validated_object(chip_fields(), std::move(v), path, false);
    case Type::model:
      if (v.is_string()) {
        if (find_entry(model_entries(), v.get_ref<const std::string&>())) return std::move(v);
        std::vector<std::string> ids;
        for (const CatalogEntry& m : model_entries()) ids.push_back(m.id);
        fail(path, "unknown model \"" + v.get<std::string>().substr(0, 40) + "\"; catalog: " +
                       joined(ids) + ", or a model object");
      }
      if (!v.is_object()) fail(path, "must be a catalog id or a model object, got " + type_name(v));
      return validated_object(model_fields(), std::move(v), path, false);
    case Type::object:
      return validated_object(p.fields, std::move(v), path, true);
    case Type::map:
      return validated_map(p, std::move(v), path);
    case Type::list:
      return validated_list(p, std::move(v), path);
    case Type::bool_or_list:
      if (!is_bool_or_list(v)) fail(path, "must be true, false, or a list of booleans (one per axis)");
      return std::move(v);
    case Type::overrides:
      return validated_overrides(p, std::move(v), path);
  }
  fail(path, "has an unsupported type");
}

}  // namespace

bool is_name(std::string_view key) {
  if (key.empty() || key.size() > 64 || !std::isalpha(static_cast<unsigned char>(key[0]))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

json validate_value(const Param& p, const json& value, const std::string& path) {
  return validated(p, json(value), Path(path));
}

Args::Args(const Calculator& calc, const json& input) : Args(calc, json(input)) {}

Args::Args(const Calculator& calc, json&& input) {
  if (!input.is_object()) {
    throw InputError("", "the input must be a JSON object of parameters, got " + type_name(input));
  }
  std::vector<bool> given;
  values_ = validated_object(calc.params, std::move(input), Path(""), true, &given);
  index_members(given);
  if (member("chip")) {
    resolve_chip();
    fill_chip_defaults(calc.params);
  } else if (member("chip_overrides")) {
    throw InputError("chip_overrides", "needs a chip to override");
  }
  if (member("model")) {
    resolve_model();
  } else if (member("model_overrides")) {
    throw InputError("model_overrides", "needs a model to override");
  }
}

// A parameter whose default depends on the kind of chip takes the value for the chip resolved
// (the kind is the chip's own: a sweep's overrides change its figures, never its kind).
void Args::fill_chip_defaults(const std::vector<Param>& params) {
  for (const Param& p : params) {
    if (!p.default_by_chip_kind.is_object()) continue;
    for (Member& m : members_) {
      if (!m.given && same_name(m.key, p.name)) *m.value = p.default_by_chip_kind.at(chip_->kind_name());
    }
  }
}

// The values emptied member by member first: nlohmann's destructor of a non-empty object moves
// every member onto a stack it allocates before destroying them.
Args::~Args() {
  if (values_.is_object()) values_.get_ref<json::object_t&>().clear();
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

// The overrides of a chip or model given none (a function's static: no order of initialisation to mind).
const json& no_overrides() {
  static const json none;
  return none;
}

}  // namespace

// The parameters are looked up in the index (json's own lookups compare each key with memcmp,
// 2 % of a numbers-only serving evaluation).
void Args::resolve_chip() {
  thread_local LastResolved<Chip> last;
  const json* overrides = member("chip_overrides");
  chip_ = resolved_as_last_time(last, *member("chip"), overrides ? *overrides : no_overrides(), shared_chip);
}

void Args::resolve_model() {
  thread_local LastResolved<Model> last;
  const json* overrides = member("model_overrides");
  model_ = resolved_as_last_time(last, *member("model"), overrides ? *overrides : no_overrides(), shared_model);
}

void Args::set_number(const Param& p, const std::vector<std::string>& path, const std::string& dotted, double value) {
  json checked = validated(p, json(value), Path(dotted));
  json* at = &values_;
  for (const std::string& key : path) at = &at->at(key);
  *at = std::move(checked);
  forget_kept_reading(path.front());
}

void Args::resolve_again() {
  if (chip_) resolve_chip();
  if (model_) resolve_model();
  forget_kept_reading("chip");
  forget_kept_reading("model");
}

Args::Kept Args::made_kept(const void* tag, std::shared_ptr<const void> value, std::vector<std::string> read) {
  std::vector<std::string> once;  // a few names, most read many times: a list kept in order
  bool all = false;
  for (std::string& name : read) {
    all = all || name == "*";
    if (std::none_of(once.begin(), once.end(), [&](const std::string& n) { return same_name(n, name); })) {
      once.push_back(std::move(name));
    }
  }
  return {tag, std::move(value), std::move(once), all};
}

void Args::forget_kept_reading(std::string_view name) {
  std::erase_if(kept_, [&](const Kept& k) {
    return k.reads_all || std::any_of(k.read.begin(), k.read.end(), [&](const std::string& r) { return same_name(r, name); });
  });
}

void Args::index_members(const std::vector<bool>& given) {
  auto& members = values_.get_ref<json::object_t&>();
  members_.reserve(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto& [key, value] = *(members.begin() + static_cast<std::ptrdiff_t>(i));
    members_.push_back({key, &value, given[i]});
  }
}

void Args::append_inputs(std::string& out) const {
  out += '{';
  const std::size_t n = members_.size();
  for (std::size_t i = 0; i < n;) {
    // A run of members whose values are written as they are: at a pointer into one room, then appended. The
    // keys are the schema's names, letters, digits and '_' (checked when the registry builds it).
    std::size_t bound = 0, end = i;
    for (std::size_t b; end < n && (b = plain_scalar_bound(*members_[end].value)) > 0; ++end) {
      bound += members_[end].key.size() + 4 + b;  // ,"key": and the value
    }
    if (end > i) {
      char* const from = write_room(bound);
      char* w = from;
      for (; i < end; ++i) {
        if (i > 0) *w++ = ',';
        *w++ = '"';
        std::memcpy(w, members_[i].key.data(), members_[i].key.size());
        w += members_[i].key.size();
        *w++ = '"';
        *w++ = ':';
        w = put_plain_scalar(*members_[i].value, w);
      }
      out.append(from, static_cast<std::size_t>(w - from));
    }
    if (i < n) {  // an object, a list, or text to escape
      if (i > 0) out += ',';
      append_string(members_[i].key, out);
      out += ':';
      append_text(*members_[i].value, out);
      ++i;
    }
  }
  out += '}';
}

const json* Args::member(std::string_view name) const {
  const Member* m = find_member(name);
  return m ? m->value : nullptr;
}

bool Args::has(std::string_view name) const {
  note_read(name);
  return member(name) != nullptr;
}
bool Args::given(std::string_view name) const {
  note_read(name);
  const Member* m = find_member(name);
  return m && m->given;
}

const json& Args::value_of(std::string_view name) const {
  note_read(name);
  const json* value = member(name);
  if (!value) throw InputError(std::string(name), "is required");
  return *value;
}

double Args::num(std::string_view name) const { return value_of(name).get<double>(); }

std::optional<double> Args::num_if(std::string_view name) const {
  note_read(name);
  const json* value = member(name);
  if (!value) return std::nullopt;
  return value->get<double>();
}

const std::string& Args::str(std::string_view name) const { return value_of(name).get_ref<const std::string&>(); }

bool Args::flag(std::string_view name) const { return value_of(name).get<bool>(); }

const json& Args::raw(std::string_view name) const { return value_of(name); }

const Chip& Args::chip() const {
  note_read("chip");
  note_read("chip_overrides");
  if (!chip_) throw InputError("chip", "is required: a catalog id or a chip object");
  return *chip_;
}

const Model& Args::model() const { return *model_handle(); }

std::shared_ptr<const Model> Args::model_handle() const {
  note_read("model");
  note_read("model_overrides");
  if (!model_) throw InputError("model", "is required: a catalog id or a model object");
  return model_;
}

}  // namespace scalelab
