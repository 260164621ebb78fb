// Validated inputs of one evaluation: every parameter checked against its schema, defaults
// filled in, chip and model resolved. Accessors throw InputError for a missing parameter.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog.hpp"
#include "json.hpp"
#include "schema.hpp"

namespace scalelab {

// What a JSON value is, in words, for messages: "a number", "a list", "null".
std::string type_name(const json& v);

class Args {
 public:
  // Validates `input`; the rvalue form moves its values into these Args instead of copying them.
  Args(const Calculator& calc, const json& input);
  Args(const Calculator& calc, json&& input);

  const json& values() const { return values_; }
  // The validated values, moved out (the last use of these Args).
  json take_values() && { return std::move(values_); }
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
  bool has_chip() const { return chip_ != nullptr; }
  bool has_model() const { return model_ != nullptr; }
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

 private:
  const std::vector<Param>* params_;  // the calculator's parameters, in schema order
  json values_;
  std::vector<bool> given_;  // by position in *params_: given by the caller
  std::shared_ptr<const Chip> chip_;   // a catalog chip without overrides is shared, resolved once
  std::shared_ptr<const Model> model_;

  const json& value_of(std::string_view name) const;  // InputError "is required" when absent
  void resolve_chip();
  void resolve_model();
};

// Validates one value against its Param; `path` names it in errors ("matmul.B").
json validate_value(const Param& p, const json& value, const std::string& path);

}  // namespace scalelab
