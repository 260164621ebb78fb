#include "models/sharding_spec.hpp"

#include <algorithm>
#include <cctype>

#include "core/errors.hpp"

namespace scalelab {
namespace {

bool is_word_char(char c, bool allow_underscore) {
  return std::isalnum(static_cast<unsigned char>(c)) || (allow_underscore && c == '_');
}

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : sep) + item;
  return s;
}

}  // namespace

Mesh::Mesh(const json& axes) {
  for (auto it = axes.begin(); it != axes.end(); ++it) axes_.push_back({it.key(), it.value().get<double>()});
}

bool Mesh::has(const std::string& name) const {
  return std::any_of(axes_.begin(), axes_.end(), [&](const MeshAxis& a) { return a.name == name; });
}

double Mesh::size(const std::string& name) const {
  for (const MeshAxis& a : axes_) {
    if (a.name == name) return a.size;
  }
  return 1;
}

double Mesh::size(const std::vector<std::string>& names) const {
  double p = 1;
  for (const auto& n : names) p *= size(n);
  return p;
}

double Mesh::devices() const {
  double p = 1;
  for (const MeshAxis& a : axes_) p *= a.size;
  return p;
}

std::vector<std::string> Mesh::names() const {
  std::vector<std::string> out;
  for (const MeshAxis& a : axes_) out.push_back(a.name);
  return out;
}

std::vector<std::string> Mesh::ordered(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const MeshAxis& a : axes_) {
    if (std::find(names.begin(), names.end(), a.name) != names.end()) out.push_back(a.name);
  }
  return out;
}

const DimSpec* ArraySpec::find(const std::string& dim) const {
  for (const DimSpec& d : dims) {
    if (d.name == dim) return &d;
  }
  return nullptr;
}

DimSpec* ArraySpec::find(const std::string& dim) {
  for (DimSpec& d : dims) {
    if (d.name == dim) return &d;
  }
  return nullptr;
}

std::vector<std::string> ArraySpec::used_axes() const {
  std::vector<std::string> out;
  for (const DimSpec& d : dims) out.insert(out.end(), d.axes.begin(), d.axes.end());
  return out;
}

std::string ArraySpec::repeated_axis() const {
  std::vector<std::string> all = used_axes();
  all.insert(all.end(), unreduced.begin(), unreduced.end());
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::find(all.begin() + i + 1, all.end(), all[i]) != all.end()) return all[i];
  }
  return "";
}

SpecReader::SpecReader(std::string_view text, const Mesh& mesh, std::string param)
    : text_(text), mesh_(mesh), param_(std::move(param)) {}

void SpecReader::fail(const std::string& message, size_t at) const {
  throw InputError(param_, message + " (at character " + std::to_string(at + 1) + " of \"" +
                               std::string(text_.substr(0, 200)) + "\")");
}

void SpecReader::skip_spaces() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
}

bool SpecReader::at_end() {
  skip_spaces();
  return pos_ >= text_.size();
}

bool SpecReader::accept(std::string_view token) {
  skip_spaces();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

void SpecReader::expect(std::string_view token, const std::string& what) {
  if (!accept(token)) {
    std::string found = pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "the end";
    fail("expected " + what + ", found " + found, pos_);
  }
}

std::string SpecReader::word(bool allow_underscore) {
  size_t start = pos_;
  while (pos_ < text_.size() && is_word_char(text_[pos_], allow_underscore)) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

std::vector<std::string> SpecReader::split_axes(const std::string& run, size_t at, const std::string& dim) const {
  std::vector<std::string> axes;
  for (size_t i = 0; i < run.size();) {
    std::string best;
    for (const MeshAxis& a : mesh_.axes()) {
      if (a.name.size() > best.size() && run.compare(i, a.name.size(), a.name) == 0) best = a.name;
    }
    if (best.empty()) {
      fail("the subscript \"" + run + "\" of dimension " + dim + " names no mesh axis at \"" + run.substr(i) +
               "\"; mesh axes: " + joined(mesh_.names(), ", "),
           at + i);
    }
    axes.push_back(best);
    i += best.size();
  }
  return axes;
}

ArraySpec SpecReader::array(bool allow_unreduced) {
  skip_spaces();
  ArraySpec out;
  out.position = pos_;
  if (pos_ >= text_.size() || !std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
    fail("expected an array name such as A", pos_);
  }
  out.name = word(true);
  expect("[", "'[' after the array name " + out.name);
  do {
    skip_spaces();
    size_t at = pos_;
    std::string dim = word(false);
    if (dim.empty() || !std::isalpha(static_cast<unsigned char>(dim[0]))) {
      fail("expected a dimension name (letters and digits, starting with a letter)", at);
    }
    if (out.find(dim)) fail("dimension " + dim + " appears twice in " + out.name, at);
    DimSpec d{dim, {}};
    if (pos_ < text_.size() && text_[pos_] == '_') {
      size_t run_at = ++pos_;
      std::string run = word(true);
      if (run.empty()) fail("expected mesh axis names after '_'", run_at);
      d.axes = split_axes(run, run_at, dim);
    }
    out.dims.push_back(d);
  } while (accept(","));
  expect("]", "',' or ']' in " + out.name);
  if (allow_unreduced && accept("{")) {
    expect("U_", "'U_' in an unreduced marker such as {U_X}");
    size_t run_at = pos_;
    std::string run = word(true);
    if (run.empty()) fail("expected mesh axis names after 'U_'", run_at);
    out.unreduced = split_axes(run, run_at, "{U}");
    expect("}", "'}' closing the unreduced marker");
  }
  return out;
}

ArraySpec parse_array_spec(std::string_view text, const Mesh& mesh, const std::string& param) {
  SpecReader reader(text, mesh, param);
  ArraySpec array = reader.array(false);
  if (!reader.at_end()) reader.fail("unexpected text after the array", reader.position());
  std::string twice = array.repeated_axis();
  if (!twice.empty()) {
    throw InputError(param, "mesh axis " + twice + " is used twice in " + array.name +
                                ": one axis can shard only one dimension of an array");
  }
  return array;
}

std::string format_array(const ArraySpec& array) {
  std::vector<std::string> dims;
  for (const DimSpec& d : array.dims) dims.push_back(d.axes.empty() ? d.name : d.name + "_" + joined(d.axes, ""));
  std::string s = array.name + "[" + joined(dims, ", ") + "]";
  if (!array.unreduced.empty()) s += "{U_" + joined(array.unreduced, "") + "}";
  return s;
}

std::string format_array_tex(const ArraySpec& array) {
  auto escaped = [](const std::string& name) {
    std::string s;
    for (char c : name) s += c == '_' ? std::string("\\_") : std::string(1, c);
    return s;
  };
  std::vector<std::string> dims;
  for (const DimSpec& d : array.dims) {
    dims.push_back(d.axes.empty() ? d.name : d.name + "_{" + escaped(joined(d.axes, "")) + "}");
  }
  std::string s = "\\mathrm{" + escaped(array.name) + "}[" + joined(dims, ", ") + "]";
  if (!array.unreduced.empty()) s += "\\{U_{" + escaped(joined(array.unreduced, "")) + "}\\}";
  return s;
}

}  // namespace scalelab
