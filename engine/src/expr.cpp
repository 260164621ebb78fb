#include "expr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "format.hpp"

namespace scalelab {

struct Expr::Node {
  Op op = Op::number;
  double value = 0;
  std::string symbol;  // Op::symbol only
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;
using Op = Expr::Op;

// Binding strength of what a node renders as: sums bind loosest, atoms tightest.
enum Precedence { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

struct Rendered {
  std::string text;
  int precedence = kAtom;
  bool number = false;  // a bare number (decides × versus juxtaposition)
};

Rendered render(const Expr::Node& n, bool substitute);

std::string wrapped(const Rendered& r, bool parens) { return parens ? "(" + r.text + ")" : r.text; }

Rendered number(double v) { return {tex(v), v < 0 ? kUnary : kAtom, true}; }

std::string list(const Expr::Node& n, bool substitute) {
  std::string out;
  for (const NodePtr& a : n.args) out += (out.empty() ? "" : ", ") + render(*a, substitute).text;
  return out;
}

Rendered render(const Expr::Node& n, bool substitute) {
  auto arg = [&](size_t i) { return render(*n.args[i], substitute); };
  switch (n.op) {
    case Op::number: return number(n.value);
    case Op::symbol: return substitute ? number(n.value) : Rendered{n.symbol, kAtom, false};
    case Op::add:
    case Op::sub: {
      Rendered a = arg(0), b = arg(1);
      bool parens = b.precedence == kUnary || (n.op == Op::sub && b.precedence == kSum);
      return {a.text + (n.op == Op::add ? " + " : " - ") + wrapped(b, parens), kSum};
    }
    case Op::mul: {
      Rendered a = arg(0), b = arg(1);
      bool b_parens = b.precedence == kSum || b.precedence == kUnary;
      // Symbols multiply by juxtaposition (2 B D F); numbers, as substituted, by ×.
      bool juxtapose = !substitute && !b.number && !b_parens;
      std::string sep = juxtapose ? " " : " \\times ";
      return {wrapped(a, a.precedence == kSum) + sep + wrapped(b, b_parens), kProduct};
    }
    case Op::div: {
      Rendered a = arg(0), b = arg(1);
      return {wrapped(a, a.precedence == kSum) + " / " + wrapped(b, b.precedence <= kUnary), kProduct};
    }
    case Op::frac: return {"\\frac{" + arg(0).text + "}{" + arg(1).text + "}", kAtom};
    case Op::pow: {
      Rendered a = arg(0), b = arg(1);
      return {wrapped(a, a.precedence < kAtom) + "^{" + b.text + "}", kPower};
    }
    case Op::neg: {
      Rendered a = arg(0);
      return {"-" + wrapped(a, a.precedence <= kUnary), kUnary};
    }
    case Op::min: return {"\\min(" + list(n, substitute) + ")", kAtom};
    case Op::max: return {"\\max(" + list(n, substitute) + ")", kAtom};
    case Op::ceil: return {"\\lceil " + arg(0).text + " \\rceil", kAtom};
    case Op::floor: return {"\\lfloor " + arg(0).text + " \\rfloor", kAtom};
    case Op::sqrt: return {"\\sqrt{" + arg(0).text + "}", kAtom};
    case Op::log2: return {"\\log_2(" + arg(0).text + ")", kAtom};
  }
  return {};
}

}  // namespace

Expr::Expr(double literal) : value_(literal), literal_(true) {}

Expr Expr::bare(double value) {
  Expr e;
  e.value_ = value;
  return e;
}

Expr Expr::symbol(std::string tex, double value) {
  Expr e;
  e.value_ = value;
  e.node_ = std::make_shared<const Node>(Node{Op::symbol, value, std::move(tex), {}});
  return e;
}

std::shared_ptr<const Expr::Node> Expr::tree() const {
  if (node_) return node_;
  if (literal_) return std::make_shared<const Node>(Node{Op::number, value_, {}, {}});
  return nullptr;
}

Expr Expr::combine(Op op, double value, std::initializer_list<const Expr*> args) {
  Expr e;
  e.value_ = value;
  for (const Expr* a : args) {
    if (!a->has_tex()) return e;  // anything bare makes the whole bare
  }
  Node n{op, value, {}, {}};
  for (const Expr* a : args) n.args.push_back(a->tree());
  e.node_ = std::make_shared<const Node>(std::move(n));
  return e;
}

Expr Expr::extremum(Op op, std::initializer_list<const Expr*> args) {
  double v = (*args.begin())->value_;
  for (const Expr* a : args) v = op == Op::min ? std::min(v, a->value_) : std::max(v, a->value_);
  return combine(op, v, args);
}

std::string Expr::tex() const {
  auto n = tree();
  return n ? render(*n, false).text : std::string();
}

std::string Expr::substituted() const {
  auto n = tree();
  return n ? render(*n, true).text : std::string();
}

Expr operator+(const Expr& a, const Expr& b) { return Expr::combine(Expr::Op::add, a.value_ + b.value_, {&a, &b}); }
Expr operator-(const Expr& a, const Expr& b) { return Expr::combine(Expr::Op::sub, a.value_ - b.value_, {&a, &b}); }
Expr operator*(const Expr& a, const Expr& b) { return Expr::combine(Expr::Op::mul, a.value_ * b.value_, {&a, &b}); }
Expr operator/(const Expr& a, const Expr& b) { return Expr::combine(Expr::Op::div, a.value_ / b.value_, {&a, &b}); }
Expr operator-(const Expr& a) { return Expr::combine(Expr::Op::neg, -a.value_, {&a}); }
Expr frac(const Expr& a, const Expr& b) { return Expr::combine(Expr::Op::frac, a.value_ / b.value_, {&a, &b}); }
Expr pow(const Expr& a, const Expr& b) {
  return Expr::combine(Expr::Op::pow, std::pow(a.value_, b.value_), {&a, &b});
}
// Within 1e-9 (relative) of an integer counts as that integer: 3 × (1/3) chips is 1 chip, not 2.
double snapped(double x) {
  double r = std::round(x);
  return std::fabs(x - r) <= 1e-9 * std::max(1.0, std::fabs(x)) ? r : x;
}
Expr ceil(const Expr& a) { return Expr::combine(Expr::Op::ceil, std::ceil(snapped(a.value_)), {&a}); }
Expr floor(const Expr& a) { return Expr::combine(Expr::Op::floor, std::floor(snapped(a.value_)), {&a}); }
Expr sqrt(const Expr& a) { return Expr::combine(Expr::Op::sqrt, std::sqrt(a.value_), {&a}); }
Expr log2(const Expr& a) { return Expr::combine(Expr::Op::log2, std::log2(a.value_), {&a}); }

}  // namespace scalelab
