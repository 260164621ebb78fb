// One definition per derivation step: an expression tree from which the step's value, its
// symbolic TeX ("b / (k W_{link})") and its substituted TeX ("10^{9} / (4 \times 4.5\times10^{10})")
// all come, with parentheses placed by precedence.
//
// An Expr is either bare (a value only, no tree: the numbers-only mode, which builds no TeX and
// allocates nothing), a literal (a number written into the formula, such as the 2 of 2BDF), or a
// tree. Combining anything with a bare Expr gives a bare Expr, so a calculator that runs without
// steps writes the same code and pays only for the arithmetic.
#pragma once
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace scalelab {

enum class LiteralForm : unsigned char;  // json_text.hpp

// x, or the integer within 1e-9 (relative) of it: 3 × (1/3) chips is 1 chip, not 2.
double snapped(double x);
// base^exponent: a square as x·x and 2^k for a whole k as that power of two, exactly (the
// formulas' usual powers, a decode step's two, without pow's cost); std::pow otherwise.
double power(double base, double exponent);

class Expr {
 public:
  enum class Op { number, symbol, add, sub, mul, div, frac, pow, neg, min, max, ceil, floor, sqrt, log2 };
  struct Node;

  // A literal number: 2 in 2BDF. Implicit, so that `2 * B` reads as written.
  Expr(double literal);  // NOLINT(google-explicit-constructor)
  Expr(int literal) : Expr(static_cast<double>(literal)) {}  // NOLINT(google-explicit-constructor)

  Expr(const Expr& other) noexcept : value_(other.value_), literal_(other.literal_), node_(other.node_) {
    if (node_) retain(node_);
  }
  Expr(Expr&& other) noexcept : value_(other.value_), literal_(other.literal_), node_(other.node_) {
    other.node_ = nullptr;
  }
  Expr& operator=(const Expr& other) noexcept {
    if (other.node_) retain(other.node_);
    if (node_) release(node_);
    value_ = other.value_;
    literal_ = other.literal_;
    node_ = other.node_;
    return *this;
  }
  Expr& operator=(Expr&& other) noexcept {
    if (this != &other) {
      if (node_) release(node_);
      value_ = other.value_;
      literal_ = other.literal_;
      node_ = other.node_;
      other.node_ = nullptr;
    }
    return *this;
  }
  [[gnu::always_inline]] ~Expr() {
    if (node_) release(node_);
  }

  // A value without a formula (numbers-only mode).
  [[gnu::always_inline]] static Expr bare(double value) {
    Expr e;
    e.value_ = value;
    return e;
  }
  // A named quantity: `tex` in the formula (copied, JSON-escaped), its value in the substitution.
  static Expr symbol(std::string_view tex, double value);

  double value() const { return value_; }
  bool has_tex() const { return node_ != nullptr || literal_; }
  // Appended to `out` as they read inside a JSON string (a derivation step is written straight
  // into the result): the symbolic TeX, "2 B D F", and the substituted one,
  // "2 \\times 512 \\times 8192" (its backslashes doubled; nothing for a bare Expr).
  void append_json_tex(std::string& out) const;
  void append_json_substituted(std::string& out) const;

  // Each operation is inline arithmetic when an operand is bare (the numbers-only mode: the
  // result is bare, no node is made and nothing is called); a tree is built out of line. The four
  // arithmetic operators, binary, unary and bare are always inlined: -Oz would keep them as calls
  // (the sweep 1.15x faster in WebAssembly for 5 KB gzip on the inference engine; BENCHMARKS.md,
  // "Link-time optimisation").
  [[gnu::always_inline]] friend Expr operator+(const Expr& a, const Expr& b) { return binary(Op::add, a.value_ + b.value_, a, b); }
  [[gnu::always_inline]] friend Expr operator-(const Expr& a, const Expr& b) { return binary(Op::sub, a.value_ - b.value_, a, b); }
  [[gnu::always_inline]] friend Expr operator*(const Expr& a, const Expr& b) { return binary(Op::mul, a.value_ * b.value_, a, b); }
  [[gnu::always_inline]] friend Expr operator/(const Expr& a, const Expr& b) { return binary(Op::div, a.value_ / b.value_, a, b); }
  friend Expr operator-(const Expr& a) { return unary(Op::neg, -a.value_, a); }
  friend Expr frac(const Expr& a, const Expr& b) { return binary(Op::frac, a.value_ / b.value_, a, b); }  // \frac{a}{b}
  friend Expr pow(const Expr& base, const Expr& exponent) {
    return binary(Op::pow, power(base.value_, exponent.value_), base, exponent);
  }
  // min and max of two to four terms (hidden friends: found only when an argument is an Expr,
  // so that std::min on doubles is never captured).
  friend Expr min(const Expr& a, const Expr& b) { return binary(Op::min, std::min(a.value_, b.value_), a, b); }
  friend Expr min(const Expr& a, const Expr& b, const Expr& c) { return extremum(Op::min, {&a, &b, &c}); }
  friend Expr min(const Expr& a, const Expr& b, const Expr& c, const Expr& d) {
    return extremum(Op::min, {&a, &b, &c, &d});
  }
  friend Expr max(const Expr& a, const Expr& b) { return binary(Op::max, std::max(a.value_, b.value_), a, b); }
  friend Expr max(const Expr& a, const Expr& b, const Expr& c) { return extremum(Op::max, {&a, &b, &c}); }
  friend Expr max(const Expr& a, const Expr& b, const Expr& c, const Expr& d) {
    return extremum(Op::max, {&a, &b, &c, &d});
  }
  // The least and the greatest of one or more terms (a list of any length, one \min of up to
  // four, nested beyond), and the sum of a list (0 when empty), each term after the one before.
  static Expr min_of(const std::vector<Expr>& terms);
  static Expr max_of(const std::vector<Expr>& terms);
  static Expr sum_of(const std::vector<Expr>& terms);
  // ceil and floor count within 1e-9 (relative) of an integer as that integer (snapped).
  friend Expr ceil(const Expr& a) { return unary(Op::ceil, std::ceil(snapped(a.value_)), a); }
  friend Expr floor(const Expr& a) { return unary(Op::floor, std::floor(snapped(a.value_)), a); }
  friend Expr sqrt(const Expr& a) { return unary(Op::sqrt, std::sqrt(a.value_), a); }
  friend Expr log2(const Expr& a) { return unary(Op::log2, std::log2(a.value_), a); }

 private:
  friend class Steps;  // the only maker of a symbol that keeps a view (of a StepText that lasts)
  // A symbol of a literal of the program, kept as its view and written in its form (StepText).
  static Expr symbol(std::string_view literal, LiteralForm form, double value);
  Expr() = default;
  [[gnu::always_inline]] static Expr binary(Op op, double value, const Expr& a, const Expr& b) {
    if (!a.has_tex() || !b.has_tex()) return bare(value);
    return combine(op, value, {&a, &b});
  }
  [[gnu::always_inline]] static Expr unary(Op op, double value, const Expr& a) {
    if (!a.has_tex()) return bare(value);
    return combine(op, value, {&a});
  }
  static Expr extremum(Op op, std::initializer_list<const Expr*> args) {
    double v = (*args.begin())->value_;
    bool bare_arg = false;
    for (const Expr* a : args) {
      v = op == Op::min ? std::min(v, a->value_) : std::max(v, a->value_);
      bare_arg = bare_arg || !a->has_tex();
    }
    return bare_arg ? bare(v) : combine(op, v, args);
  }
  static Expr combine(Op op, double value, std::initializer_list<const Expr*> args);
  const Node* tree() const;  // a new reference to the tree (the literal's node made on demand)
  // Nodes are counted by hand (not shared_ptr: no atomic counts, as an Expr never leaves the
  // evaluation's thread) and reused from a per-thread pool once their count drops to zero.
  static void retain(const Node* node);
  static void release(const Node* node);

  double value_ = 0;
  bool literal_ = false;
  const Node* node_ = nullptr;
};

}  // namespace scalelab
