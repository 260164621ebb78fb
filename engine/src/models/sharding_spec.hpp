// The book's sharding notation (sharding.md): "A[I_X, J_YZ]", with an optional "{U_X}" for an
// unreduced array. Subscripts are split into mesh axis names by greedy longest match.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace scalelab {

struct MeshAxis {
  std::string name;
  double size = 1;
};

class Mesh {
 public:
  explicit Mesh(const json& axes);  // a validated map {"X": 4, "Y": 8}, in the caller's order
  const std::vector<MeshAxis>& axes() const { return axes_; }
  bool has(const std::string& name) const;
  double size(const std::string& name) const;
  double size(const std::vector<std::string>& names) const;  // product
  double devices() const;
  std::vector<std::string> names() const;
  // `names` in mesh order.
  std::vector<std::string> ordered(const std::vector<std::string>& names) const;

 private:
  std::vector<MeshAxis> axes_;
};

struct DimSpec {
  std::string name;
  std::vector<std::string> axes;  // mesh axes that shard this dimension, outermost first
};

struct ArraySpec {
  std::string name;
  std::vector<DimSpec> dims;
  std::vector<std::string> unreduced;  // "{U_X}": partial sums pending over these axes
  size_t position = 0;                 // 0-based offset of the name in the spec text

  const DimSpec* find(const std::string& dim) const;
  DimSpec* find(const std::string& dim);
  std::vector<std::string> used_axes() const;  // sharding axes of every dimension
  // The first mesh axis that appears twice (across dimensions and {U_…}); empty if none.
  std::string repeated_axis() const;
};

// A recursive-descent reader over one spec string; errors name `param` and the character.
class SpecReader {
 public:
  SpecReader(std::string_view text, const Mesh& mesh, std::string param);
  ArraySpec array(bool allow_unreduced);
  bool accept(std::string_view token);
  void expect(std::string_view token, const std::string& what);
  bool at_end();
  [[noreturn]] void fail(const std::string& message, size_t at) const;
  size_t position() const { return pos_; }

 private:
  void skip_spaces();
  std::string word(bool allow_underscore);
  std::vector<std::string> split_axes(const std::string& run, size_t at, const std::string& dim) const;

  std::string text_;  // owned: callers often pass a temporary
  const Mesh& mesh_;
  std::string param_;
  size_t pos_ = 0;
};

// A whole spec holding one array; refuses a mesh axis used twice.
ArraySpec parse_array_spec(std::string_view text, const Mesh& mesh, const std::string& param);

// "A[I_X, J_YZ]{U_W}"
std::string format_array(const ArraySpec& array);
// The same in TeX: \mathrm{A}[I_{X}, J_{YZ}]\{U_{W}\}
std::string format_array_tex(const ArraySpec& array);

}  // namespace scalelab
