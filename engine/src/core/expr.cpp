#include "core/expr.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/format.hpp"
#include "core/json_text.hpp"

namespace scalelab {

struct Expr::Node {
  static constexpr std::size_t kMaxArgs = 4;  // max() of four terms
  Op op = Op::number;
  double value = 0;
  std::string_view symbol;  // Op::symbol only: its TeX, a literal of the program's or `owned`
  LiteralForm form = LiteralForm::as_is;  // how `symbol` reads inside a JSON string
  std::string owned;  // a symbol made from text that does not last: its copy, JSON-escaped
  std::array<const Node*, kMaxArgs> args{};  // each holds a reference
  std::size_t count = 0;  // of args
  mutable std::size_t refs = 1;
};

namespace {

// Nodes whose count dropped to zero, kept for the next ones (their owned text keeps its room).
struct NodePool {
  static constexpr std::size_t kKept = 4096;
  std::vector<Expr::Node*> free;
  ~NodePool() {
    for (Expr::Node* n : free) delete n;
  }
};
thread_local NodePool pool;

Expr::Node* new_node(Expr::Op op, double value) {
  Expr::Node* n;
  if (pool.free.empty()) {
    n = new Expr::Node();
  } else {
    n = pool.free.back();
    pool.free.pop_back();
    n->count = 0;
    n->refs = 1;
  }
  n->op = op;
  n->value = value;
  return n;
}

}  // namespace

void Expr::retain(const Node* node) { ++node->refs; }

void Expr::release(const Node* node) {
  if (--node->refs != 0) return;
  for (std::size_t i = 0; i < node->count; ++i) release(node->args[i]);
  auto* n = const_cast<Node*>(node);  // the last reference: the node is ours to reuse
  if (pool.free.size() < NodePool::kKept) pool.free.push_back(n);
  else delete n;
}

namespace {

using Op = Expr::Op;

// Binding strength of what a node renders as: sums bind loosest, atoms tightest.
enum Precedence { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

// A node's precedence as rendered (a symbol renders as its number when substituted).
int precedence(const Expr::Node& n, bool substitute) {
  switch (n.op) {
    case Op::number: return n.value < 0 ? kUnary : kAtom;
    case Op::symbol: return substitute && n.value < 0 ? kUnary : kAtom;
    case Op::add:
    case Op::sub: return kSum;
    case Op::mul:
    case Op::div: return kProduct;
    case Op::pow: return kPower;
    case Op::neg: return kUnary;
    default: return kAtom;
  }
}

// Renders as a bare number (decides × versus juxtaposition).
bool renders_number(const Expr::Node& n, bool substitute) {
  return n.op == Op::number || (n.op == Op::symbol && substitute);
}

// The symbol rendered at the right (or left) edge of `n` in its formula, or null where that edge is
// a bracket, a number or an operator's own TeX (brackets as render puts them).
const Expr::Node* edge_symbol(const Expr::Node& n, bool right) {
  auto p = [&](std::size_t i) { return precedence(*n.args[i], false); };
  auto inner = [&](std::size_t i, bool parens) { return parens ? nullptr : edge_symbol(*n.args[i], right); };
  switch (n.op) {
    case Op::symbol: return &n;
    case Op::mul: return right ? inner(1, p(1) == kSum || p(1) == kUnary) : inner(0, p(0) == kSum);
    case Op::div: return right ? inner(1, p(1) <= kUnary) : inner(0, p(0) == kSum);
    case Op::pow: return right ? nullptr : inner(0, p(0) < kAtom);
    case Op::neg: return right ? inner(0, p(0) <= kUnary) : nullptr;
    default: return nullptr;
  }
}

// A symbol that is a word (\text{capacity}): TeX drops the space between juxtaposed factors, so
// a word beside another factor would run into it ("capacityshare", "reads_1").
bool is_word(const Expr::Node* n) {
  if (n == nullptr) return false;
  std::string_view tex = n->symbol;
  tex.remove_prefix(std::min(tex.find_first_not_of('\\'), tex.size()));
  return tex.starts_with("text{");
}

// Appends the TeX of `n` to `out`, JSON-escaped (the operators' literals escaped at compile time, a
// symbol in the form its literal was found to have then, or escaped when it was copied): the
// symbols, or their numbers when `substitute`.
void render(const Expr::Node& n, bool substitute, std::string& out);

void render_wrapped(const Expr::Node& n, bool substitute, bool parens, std::string& out) {
  if (parens) out += '(';
  render(n, substitute, out);
  if (parens) out += ')';
}

void render_list(const Expr::Node& n, bool substitute, std::string& out) {
  const std::size_t start = out.size();
  for (std::size_t i = 0; i < n.count; ++i) {
    if (out.size() != start) out += ", ";
    render(*n.args[i], substitute, out);
  }
}

void render_enclosed(const Expr::Node& n, bool substitute, std::string_view open, std::string_view close,
                     std::string& out) {
  out += open;
  render(*n.args[0], substitute, out);
  out += close;
}

void render(const Expr::Node& n, bool substitute, std::string& out) {
  auto arg = [&](std::size_t i) -> const Expr::Node& { return *n.args[i]; };
  auto prec = [&](std::size_t i) { return precedence(arg(i), substitute); };
  switch (n.op) {
    case Op::number: append_json_tex(n.value, out); return;
    case Op::symbol:
      if (substitute) append_json_tex(n.value, out);
      else append_literal(n.symbol, n.form, out);
      return;
    case Op::add:
    case Op::sub: {
      render(arg(0), substitute, out);
      out += n.op == Op::add ? " + " : " - ";
      bool parens = prec(1) == kUnary || (n.op == Op::sub && prec(1) == kSum);
      render_wrapped(arg(1), substitute, parens, out);
      return;
    }
    case Op::mul: {
      render_wrapped(arg(0), substitute, prec(0) == kSum, out);
      bool b_parens = prec(1) == kSum || prec(1) == kUnary;
      // Symbols and parenthesised sums multiply by juxtaposition (2 B D F, 2 L D (N + K) H);
      // numbers, as substituted, and a negative factor by ×.
      // A word beside a factor takes a thin space (\\text{capacity} \\, \\text{share}).
      bool juxtapose = !substitute && !renders_number(arg(1), substitute) && prec(1) != kUnary;
      if (!juxtapose) out += escaped<" \\times ">;
      else if (is_word(edge_symbol(arg(0), true)) || is_word(edge_symbol(arg(1), false))) out += escaped<" \\, ">;
      else out += ' ';
      render_wrapped(arg(1), substitute, b_parens, out);
      return;
    }
    case Op::div:
      render_wrapped(arg(0), substitute, prec(0) == kSum, out);
      out += " / ";
      render_wrapped(arg(1), substitute, prec(1) <= kUnary, out);
      return;
    case Op::frac:
      out += escaped<"\\frac{">;
      render(arg(0), substitute, out);
      out += "}{";
      render(arg(1), substitute, out);
      out += '}';
      return;
    case Op::pow:
      render_wrapped(arg(0), substitute, prec(0) < kAtom, out);
      out += "^{";
      render(arg(1), substitute, out);
      out += '}';
      return;
    case Op::neg:
      out += '-';
      render_wrapped(arg(0), substitute, prec(0) <= kUnary, out);
      return;
    case Op::min:
    case Op::max:
      out += n.op == Op::min ? escaped<"\\min("> : escaped<"\\max(">;
      render_list(n, substitute, out);
      out += ')';
      return;
    case Op::ceil: render_enclosed(n, substitute, escaped<"\\lceil ">, escaped<" \\rceil">, out); return;
    case Op::floor: render_enclosed(n, substitute, escaped<"\\lfloor ">, escaped<" \\rfloor">, out); return;
    case Op::sqrt: render_enclosed(n, substitute, escaped<"\\sqrt{">, "}", out); return;
    case Op::log2: render_enclosed(n, substitute, escaped<"\\log_2(">, ")", out); return;
  }
}

}  // namespace

Expr::Expr(double literal) : value_(literal), literal_(true) {}

Expr Expr::symbol(std::string_view tex, double value) {
  Expr e;
  e.value_ = value;
  Node* n = new_node(Op::symbol, value);
  n->owned.clear();  // a pooled node's string keeps its room
  append_escaped(tex, n->owned);
  n->symbol = n->owned;
  n->form = LiteralForm::as_is;
  e.node_ = n;
  return e;
}

Expr Expr::symbol(std::string_view literal, LiteralForm form, double value) {
  Expr e;
  e.value_ = value;
  Node* n = new_node(Op::symbol, value);
  n->symbol = literal;
  n->form = form;
  e.node_ = n;
  return e;
}

const Expr::Node* Expr::tree() const {
  if (node_) {
    retain(node_);
    return node_;
  }
  if (literal_) return new_node(Op::number, value_);
  return nullptr;
}

Expr Expr::combine(Op op, double value, std::initializer_list<const Expr*> args) {
  Expr e;
  e.value_ = value;
  for (const Expr* a : args) {
    if (!a->has_tex()) return e;  // anything bare makes the whole bare
  }
  Node* n = new_node(op, value);
  for (const Expr* a : args) n->args[n->count++] = a->tree();
  e.node_ = n;
  return e;
}

// A literal renders as its number, a bare Expr as nothing.
void Expr::append_json_tex(std::string& out) const {
  if (node_) render(*node_, false, out);
  else if (literal_) scalelab::append_json_tex(value_, out);
}

void Expr::append_json_substituted(std::string& out) const {
  if (node_) render(*node_, true, out);
  else if (literal_) scalelab::append_json_tex(value_, out);
}

namespace {

// Folds `terms` four at a time into one extremum (one node for up to four; the value is the same
// whichever way they are grouped).
Expr extremum_of(const std::vector<Expr>& terms, bool least) {
  auto pick = [least](const std::vector<Expr>& t) -> Expr {
    switch (t.size()) {
      case 1: return t[0];
      case 2: return least ? min(t[0], t[1]) : max(t[0], t[1]);
      case 3: return least ? min(t[0], t[1], t[2]) : max(t[0], t[1], t[2]);
      default: return least ? min(t[0], t[1], t[2], t[3]) : max(t[0], t[1], t[2], t[3]);
    }
  };
  std::vector<Expr> level = terms;
  while (level.size() > 4) {
    std::vector<Expr> next;
    for (std::size_t i = 0; i < level.size(); i += 4) {
      next.push_back(pick({level.begin() + i, level.begin() + std::min(level.size(), i + 4)}));
    }
    level = std::move(next);
  }
  return pick(level);
}

}  // namespace

Expr Expr::min_of(const std::vector<Expr>& terms) { return extremum_of(terms, true); }
Expr Expr::max_of(const std::vector<Expr>& terms) { return extremum_of(terms, false); }

Expr Expr::sum_of(const std::vector<Expr>& terms) {
  if (terms.empty()) return 0;
  Expr sum = terms[0];
  for (std::size_t i = 1; i < terms.size(); ++i) sum = sum + terms[i];
  return sum;
}

double power(double base, double exponent) {
  if (exponent == 2) return base * base;
  if (base == 2 && exponent == std::floor(exponent) && std::fabs(exponent) <= 1000) {
    return std::ldexp(1.0, static_cast<int>(exponent));
  }
  return std::pow(base, exponent);
}

// Within 1e-9 (relative) of an integer counts as that integer: 3 × (1/3) chips is 1 chip, not 2.
double snapped(double x) {
  double r = std::round(x);
  return std::fabs(x - r) <= 1e-9 * std::max(1.0, std::fabs(x)) ? r : x;
}

}  // namespace scalelab
