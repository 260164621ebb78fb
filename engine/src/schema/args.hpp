// Validated inputs of one evaluation: every parameter checked against its schema, defaults
// filled in, chip and model resolved. Accessors throw InputError for a missing parameter.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/json.hpp"
#include "schema/schema.hpp"

namespace scalelab {

// What a JSON value is, in words, for messages: "a number", "a list", "null".
std::string type_name(const json& v);

class Args {
 public:
  // Validates `input`; the rvalue form moves its values into these Args instead of copying them.
  Args(const Calculator& calc, const json& input);
  Args(const Calculator& calc, json&& input);
  // The index of members_ points into values_: built in place, never copied.
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;
  ~Args();

  // The validated values, defaults filled in, as an object in the schema's order: appended to
  // `out` as append_text writes them (each run of plain members written at a pointer, then appended).
  void append_inputs(std::string& out) const;
  // Looked up by a name the calculator spells out: a string_view, so that a literal builds no string.
  bool has(std::string_view name) const;    // given, or has a default
  bool given(std::string_view name) const;  // given by the caller
  double num(std::string_view name) const;
  std::optional<double> num_if(std::string_view name) const;
  const std::string& str(std::string_view name) const;
  bool flag(std::string_view name) const;
  const json& raw(std::string_view name) const;
  const Chip& chip() const;
  const Model& model() const;
  // The same model, shared: what a kept setup holds instead of a copy (a model carries its
  // catalog object, whose copy cost a decode evaluation a twentieth of its time).
  std::shared_ptr<const Model> model_handle() const;
  bool has_chip() const {
    note_read("chip");
    note_read("chip_overrides");
    return chip_ != nullptr;
  }
  bool has_model() const {
    note_read("model");
    note_read("model_overrides");
    return model_ != nullptr;
  }
  double dtype(std::string_view name) const { return dtype_bytes(str(name)); }

  // Sets the numeric parameter at `path` ({"batch"}, {"matmul", "B"}, {"chip_overrides",
  // "hbm_bytes"}), which these Args already hold, to `value`: validated against `p` as the
  // constructor validates it (the same message, naming `dotted`); on a refusal nothing changes.
  // A sweep point changes its swept values this way instead of validating every parameter again.
  // After a change inside the chip's or model's overrides, call resolve_again.
  void set_number(const Param& p, const std::vector<std::string>& path, const std::string& dotted, double value);
  // Resolves the chip and the model from the values now held, as the constructor does after
  // validating every parameter.
  void resolve_again();

  // What a calculator works out from its inputs before the figures a sweep varies (a shared
  // setup), kept under `tag` (the address of a static of the caller's): `make` runs on the first
  // call and again only after set_number changed a parameter it read through these Args, so a
  // sweep over the batch or the context builds the setup once. The reference holds until then.
  template <class T, class Make>
  const T& kept(const void* tag, Make&& make) const {
    for (const Kept& k : kept_) {
      if (k.tag != tag) continue;
      if (reads_) reads_->insert(reads_->end(), k.read.begin(), k.read.end());
      return *static_cast<const T*>(k.value.get());
    }
    std::vector<std::string> read;
    Reading reading(*this, tracking_ ? &read : nullptr);
    auto value = std::make_shared<const T>(make());
    if (kept_.capacity() == 0) kept_.reserve(4);  // a calculator keeps two or three: one allocation
    kept_.push_back(made_kept(tag, value, std::move(read)));
    return *value;
  }
  // From now on (a sweep's points), note which parameters each kept setup reads.
  void track_reads() { tracking_ = true; }

 private:
  json values_;
  // values_'s members in order, each with its key's view and whether the caller gave it: a
  // lookup by name compares views, which the browser's -Oz engine does without a call per member
  // (std::string's size and data are calls there; a view's are fields).
  struct Member {
    std::string_view key;
    json* value;
    bool given;
  };
  std::vector<Member> members_;
  void index_members(const std::vector<bool>& given);
  void fill_chip_defaults(const std::vector<Param>& params);
  const Member* find_member(std::string_view name) const {
    for (const Member& m : members_) {
      if (same_name(m.key, name)) return &m;
    }
    return nullptr;
  }
  std::shared_ptr<const Chip> chip_;   // a catalog chip without overrides is shared, resolved once
  std::shared_ptr<const Model> model_;

  struct Kept {
    const void* tag;
    std::shared_ptr<const void> value;
    std::vector<std::string> read;  // the top-level parameter names it read, each once
    bool reads_all = false;         // it read every parameter ("*")
  };
  // A kept setup whose reads are listed once each ("*": all of them), for forget_kept_reading.
  static Kept made_kept(const void* tag, std::shared_ptr<const void> value, std::vector<std::string> read);
  mutable std::vector<Kept> kept_;
  mutable std::vector<std::string>* reads_ = nullptr;  // where the setup being made notes its reads
  bool tracking_ = false;
  // Notes the setup's reads while it is made, and hands them on to a setup that is making it.
  class Reading {
   public:
    Reading(const Args& args, std::vector<std::string>* read) : args_(args), outer_(args.reads_) {
      if (read) args_.reads_ = read;
    }
    ~Reading() {
      std::vector<std::string>* read = args_.reads_;
      args_.reads_ = outer_;
      if (outer_ && read && read != outer_) outer_->insert(outer_->end(), read->begin(), read->end());
    }
    Reading(const Reading&) = delete;
    Reading& operator=(const Reading&) = delete;

   private:
    const Args& args_;
    std::vector<std::string>* outer_;
  };
  void note_read(std::string_view name) const {
    if (reads_) reads_->emplace_back(name);
  }
  void forget_kept_reading(std::string_view name);

  const json& value_of(std::string_view name) const;  // InputError "is required" when absent
  const json* member(std::string_view name) const;    // the value of parameter `name`, or null
  void resolve_chip();
  void resolve_model();
};

// A dimension, axis, field or parameter name: a letter, then letters, digits or '_' (at most 64).
bool is_name(std::string_view key);

// Validates one value against its Param; `path` names it in errors ("matmul.B").
json validate_value(const Param& p, const json& value, const std::string& path);

}  // namespace scalelab
