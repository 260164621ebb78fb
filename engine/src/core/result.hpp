// What a calculator produces: named outputs, the derivation steps, warnings.
#pragma once
#include <array>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/expr.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "core/output.hpp"

namespace scalelab {

// A warning: its text, or its kind (the function that writes the text, a pure function of the
// numbers and of one text argument, a word placed into the message: the chip's memory, say) with
// its numbers and argument, so that the text is made only when the result is written and a sweep
// that meets the same kind, numbers and argument at many points makes it once.
class Warning {
 public:
  static constexpr std::size_t kMaxNumbers = 10;
  using Numbers = std::array<double, kMaxNumbers>;
  // Appends the text made from the numbers and the argument to `out` (the result's own text, as
  // it is written).
  using Text = void (*)(const Numbers&, std::string_view argument, std::string& out);

  Warning(std::string text) : text_(std::move(text)) {}  // NOLINT: a warning given as its text
  Warning(const char* text) : text_(text) {}             // NOLINT
  Warning(Text make, const Numbers& numbers, std::string argument = {})
      : make_(make), numbers_(numbers), text_(std::move(argument)) {}

  // The text appended to `out`, unescaped; text() makes it on its own.
  void append_text(std::string& out) const {
    if (make_) make_(numbers_, text_, out);
    else out += text_;
  }
  std::string text() const {
    std::string t;
    append_text(t);
    return t;
  }
  // Made from a kind, numbers and an argument (a sweep tells these apart by kind, numbers bit for
  // bit, and argument).
  bool has_kind() const { return make_ != nullptr; }
  Text kind() const { return make_; }
  const Numbers& numbers() const { return numbers_; }
  const std::string& argument() const { return text_; }  // empty unless made from a kind

 private:
  Text make_ = nullptr;
  Numbers numbers_{};
  std::string text_;  // the whole text, or the argument of a kind
};
using Warnings = std::vector<Warning>;
// Appends `warning` to `warnings`, room for four made at the first (a decode past its HBM meets
// two or three: one allocation, not one per growth).
inline void add_warning(Warnings& warnings, Warning&& warning) {
  if (warnings.capacity() == 0) warnings.reserve(4);
  warnings.push_back(std::move(warning));
}

// A hash of a warning's kind and its numbers' bits (`bits`: each number's, as memcpy gives them),
// by which a sweep keys the warnings it has met. FNV-1a over the words, then folded (murmur3's
// finaliser) so that every one of the 64 bits reaches the low 32, all that WebAssembly's size_t
// keeps: FNV's low bits depend only on the words' low bits, which are zero in most doubles (whole
// numbers, powers of two). Unfolded, the warnings of a sweep whose numbers differed only in their
// high bits all hashed alike there, and each new one was compared with every one before it.
// The argument's bytes are mixed in after the numbers, eight at a time.
std::uint64_t warning_hash(Warning::Text kind, const std::array<std::uint64_t, Warning::kMaxNumbers>& bits,
                           std::string_view argument = {});

// Text a step is written with (a label, a symbol's TeX, a unit). A literal is measured, and its
// form inside a JSON string told (literal_form), at compile time: it lasts as long as the program,
// so a symbol keeps its view and a step writes it without a scan (a consteval constructor, so only
// a literal or a constant array becomes one). Other text is held as its view, escaped when it is
// written, and copied by a symbol that keeps it. A parameter type only: it does not own what it
// points to, and a temporary string it was made from lives to the end of the call.
class StepText {
 public:
  template <std::size_t N>
  consteval StepText(const char (&literal)[N])  // NOLINT(google-explicit-constructor)
      : data_(literal), word_(packed(N - 1, literal_form({literal, N - 1}), true)) {
    for (std::size_t i = 0; i + 1 < N; ++i) {
      if (literal[i] == '\0') throw "StepText: a literal holds no NUL before its end";
    }
    if (literal[N - 1] != '\0') throw "StepText: a literal ends with its NUL";
  }
  StepText(std::string_view text) : data_(text.data()), word_(borrowed(text)) {}    // NOLINT(google-explicit-constructor)
  StepText(const std::string& text) : data_(text.data()), word_(borrowed(text)) {}  // NOLINT(google-explicit-constructor)
  std::string_view view() const { return {data_, word_ >> 3}; }
  LiteralForm form() const { return static_cast<LiteralForm>((word_ >> 1) & 3); }
  bool lasting() const { return word_ & 1; }  // a literal of the program
  // The same text without its last `n` bytes (n ≤ size), in the same form.
  StepText without_suffix(std::size_t n) const {
    StepText t = *this;
    t.word_ -= n << 3;
    return t;
  }
  // Appended to `out` as it reads inside a JSON string (without quotes).
  void append_json(std::string& out) const { append_literal(view(), form(), out); }

 private:
  // The size, form and lasting flag in one word of the pointer's width (no padding to keep), the
  // size in its high bits: a literal's is one small constant, set in one instruction at a call
  // site (a numbers-only call site builds a StepText it never reads; in WebAssembly a small
  // constant is a short one), and a StepText is passed in two registers. A step's text is the
  // program's or made from an input of at most 64 KiB (kMaxInputBytes): its size is far below
  // the word's 512 MiB (in WebAssembly's 32 bits).
  static constexpr std::size_t packed(std::size_t size, LiteralForm form, bool lasting) {
    return (size << 3) | static_cast<std::size_t>(form) << 1 | std::size_t{lasting};
  }
  static std::size_t borrowed(std::string_view text) {
    return packed(text.size(), LiteralForm::escaped_at_run_time, false);
  }
  const char* data_;
  std::size_t word_;
};
static_assert(sizeof(StepText) <= 16, "a StepText is passed in two registers");

// The derivation steps as the result lists them, each written as text when it is recorded: its
// {"label", "formula", "substituted", "value", "unit"} object, the strings JSON-escaped (the TeX
// rendered escaped, see Expr), the value canonical; the objects comma-separated. A value that is
// not finite is an engine fault: the first such step's label is kept, and append_steps
// (pipeline.hpp) reports it where the steps are written, after the outputs' own checks.
class StepList {
 public:
  // Appends one step: `formula(out)` and `substituted(out)` append their TeX, JSON-escaped.
  template <class Formula, class Substituted>
  void add(std::string_view prefix, StepText label, Formula&& formula, Substituted&& substituted,
           double value, StepText unit) {
    open(prefix, label);
    formula(text_);
    text_ += "\",\"substituted\":\"";
    substituted(text_);
    close(prefix, label, value, unit);
  }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The steps' objects, comma-separated, without the list's brackets.
  const std::string& text() const { return text_; }
  // The label of the first step whose value is not finite; null when none.
  const std::string* fault() const { return fault_ ? &*fault_ : nullptr; }
  void reserve(std::size_t bytes) { text_.reserve(bytes); }
  void clear() {
    text_.clear();
    count_ = 0;
    fault_.reset();
  }

 private:
  void open(std::string_view prefix, StepText label);  // up to the formula's TeX
  void close(std::string_view prefix, StepText label, double value, StepText unit);

  std::string text_;
  std::size_t count_ = 0;
  std::optional<std::string> fault_;
};

// The one step sink. Each step is one Expr: its formula, substituted formula and value all come
// from it. A sink without an array is numbers-only: it records nothing and hands out bare
// Exprs, so no TeX is ever built (the labs' hot path, and sweep points inside a calculator).
class Steps {
 public:
  Steps() = default;  // numbers-only, and warnings dropped (sweep points)
  // `sink` null: numbers-only. `warnings` null: warnings dropped.
  Steps(StepList* sink, Warnings* warnings) : sink_(sink), warnings_(warnings) {}

  bool on() const { return sink_ != nullptr; }
  // sym and step are always inlined: a numbers-only call site is then the test of on() (-Oz
  // would keep a call to each).
  // A named input of a formula: `tex` when steps are on, a bare value otherwise.
  [[gnu::always_inline]] Expr sym(StepText tex, double value) const {
    if (!on()) return Expr::bare(value);
    return symbol(tex, value);
  }
  // Records "label: lhs = expr" and returns its value named `lhs`, for the steps that follow.
  // An empty lhs records the bare expression (and returns it unnamed). Numbers-only: the value.
  [[gnu::always_inline]] Expr step(StepText label, StepText lhs, const Expr& expr, StepText unit) const {
    if (!on()) return Expr::bare(expr.value());
    return record(label, lhs, expr, unit);
  }
  // The same sink, each label prefixed (e.g. "AllGather A: ").
  Steps prefixed(std::string_view prefix) const;
  // A warning about this configuration (kept in numbers-only mode too).
  void warn(Warning warning) const {
    if (warnings_) add_warning(*warnings_, std::move(warning));
  }

 private:
  // The steps-on paths, out of line: a numbers-only call site holds the test of on() and nothing else.
  static Expr symbol(StepText tex, double value);
  Expr record(StepText label, StepText lhs, const Expr& expr, StepText unit) const;

  StepList* sink_ = nullptr;
  Warnings* warnings_ = nullptr;
  std::string prefix_;
};

// A verdict such as what binds a step ("memory", "compute", "comms"): made only from a string
// literal, so that it lives as long as the program and an output can keep its view without a
// copy (Outputs::set_word_at), and a std::string made at run time cannot become one.
class Word {
 public:
  constexpr Word() = default;  // the empty word, before a verdict is set
  template <std::size_t N>
  constexpr Word(const char (&literal)[N]) : view_(literal, N - 1) {}  // NOLINT: "memory" reads as a Word
  constexpr operator std::string_view() const { return view_; }       // NOLINT
  friend bool operator==(Word a, std::string_view b) { return a.view_ == b; }

 private:
  std::string_view view_;
};

// The outputs of one evaluation, held by their position among the calculator's declared outputs
// (no key strings, no object to search, reorder or free per call). A number is kept as a double
// in its slot (the hot path: no json made, checked or freed per output), a literal word (a
// verdict) as its view, and anything else (a copied text, a shape, a list) as a json. Numbers are
// canonicalised where they are written (pipeline.hpp), not here.
class Outputs {
 public:
  // What a slot holds: nothing set, null, a number (number(i)), a literal word (word(i)), true
  // or false (flag(i)), or another value (other(i)).
  enum class Kind : unsigned char { unset, null, number, word, flag, other };

  explicit Outputs(const std::vector<Output>& declared);

  // Sets output `name`; a second set of the same name replaces the first. Calculators emit
  // mostly in declaration order, so the search starts after the last output set. A json that
  // holds a float is kept as a number, null as null.
  void set(std::string_view name, json value) {
    if (auto at = found(name)) set_at(*at, std::move(value));
  }
  void set_number(std::string_view name, double value) {
    if (auto at = found(name)) set_number_at(*at, value);
  }
  // The same by declared position (output_rows.hpp output_index), no name looked up.
  void set_number_at(std::size_t i, double value) {
    slots_[i].number = value;
    mark(i, Kind::number);
  }
  void set_null_at(std::size_t i) { mark(i, Kind::null); }
  void set_null(std::string_view name) {
    if (auto at = found(name)) set_null_at(*at);
  }
  // A literal word, kept as its view; any other text goes through set_text_at, which copies it
  // (into the slot's string when it holds one already).
  void set_word_at(std::size_t i, Word word) {
    slots_[i].word = word;
    mark(i, Kind::word);
  }
  void set_text_at(std::size_t i, std::string_view text) {
    json& at = other_slot(i);
    if (at.is_string()) at.get_ref<json::string_t&>().assign(text);
    else at = std::string(text);
    mark(i, Kind::other);
  }
  // true or false in the slot (a verdict such as fits): no json made for it.
  void set_flag_at(std::size_t i, bool value) {
    slots_[i].flag = value;
    mark(i, Kind::flag);
  }
  void set_at(std::size_t i, json value) {
    if (value.is_number_float()) return set_number_at(i, value.get_ref<const json::number_float_t&>());
    if (value.is_null()) return set_null_at(i);
    if (value.is_boolean()) return set_flag_at(i, value.get<bool>());
    other_slot(i) = std::move(value);
    mark(i, Kind::other);
  }

  const std::vector<Output>& declared() const { return *declared_; }
  std::size_t size() const { return slots_.size(); }
  Kind kind(std::size_t i) const { return slots_[i].kind; }
  bool is_set(std::size_t i) const { return slots_[i].kind != Kind::unset; }
  // The number at position `i` (kind number) and the other value (kind other).
  double number(std::size_t i) const { return slots_[i].number; }
  std::string_view word(std::size_t i) const { return slots_[i].word; }
  bool flag(std::size_t i) const { return slots_[i].flag; }
  const json& other(std::size_t i) const { return others_[i]; }
  // The value at declared position `i` as a json (null when not set): made on each call, for
  // the few readers off the hot path (a calculator reading back an output, tests).
  json at(std::size_t i) const;
  // The value set for `name` as a json, or nothing when it was not set (or is not declared).
  std::optional<json> find(std::string_view name) const;
  // The declared position of `name`, or nothing for a name not declared (nothing noted).
  std::optional<std::size_t> index_of(std::string_view name) const { return position(name); }

  // An output emitted without a declaration, or a declared one left out or null without being
  // nullable, is an engine fault: std::logic_error naming `calculator`.
  void check(const std::string& calculator) const;
  // Back to nothing set, as constructed (a sweep reuses one Outputs point after point). The
  // values stay in their slots, unread (kind() goes by what is set), to be overwritten.
  void clear();

 private:
  // The position of `name`, and the next search starts after it; nothing for an undeclared
  // name, which is noted for check().
  std::optional<std::size_t> found(std::string_view name);
  void mark(std::size_t i, Kind kind) {
    slots_[i].kind = kind;
    cursor_ = i + 1;
  }
  std::optional<std::size_t> position(std::string_view name) const;
  // The slot of a value of kind other, the slots made on the first such value: most results
  // hold numbers and words only, and a json per output cost an allocation and a destructor each.
  json& other_slot(std::size_t i) {
    if (others_.empty()) others_.resize(slots_.size());
    return others_[i];
  }

  struct Slot {
    double number = 0;
    std::string_view word;
    bool flag = false;
    Kind kind = Kind::unset;
  };
  const std::vector<Output>* declared_;
  std::vector<Slot> slots_;    // by declared position: what is set, and its number or word
  std::vector<json> others_;   // by declared position, the values of kind other (or empty)
  std::size_t cursor_ = 0;
  std::vector<std::size_t> required_;    // the positions of the outputs that are not nullable
  std::vector<std::string> undeclared_;  // reported by check(), in the order emitted
};

struct Result {
  explicit Result(const std::vector<Output>& declared) : outputs(declared) {}

  Outputs outputs;
  StepList steps;
  Warnings warnings;
  // Top-level fields beside "outputs" (e.g. the resolved chip): null, which iterates as empty,
  // until a calculator sets one (an empty object would be an allocation at every evaluation).
  json extra;
  bool record_steps = true;     // false: numbers-only evaluation
  // The outputs of text the caller does not read, by declared position (empty: it reads them all).
  // A sweep writes a column of words only where its spec names it, so every other sentence it
  // would be given (expected_outside, measured_among) is written null there without being made.
  std::vector<bool> text_unread;

  template <typename T>
    requires(!std::is_same_v<std::remove_cvref_t<T>, Expr> && !std::is_same_v<std::remove_cvref_t<T>, double>)
  void out(std::string_view name, T&& value) {
    outputs.set(name, json(std::forward<T>(value)));
  }
  void out(std::string_view name, double value) { outputs.set_number(name, value); }
  void out(std::string_view name, const Expr& value) { outputs.set_number(name, value.value()); }
  void out_null(std::string_view name) { outputs.set_null(name); }
  // By declared position (output_rows.hpp output_index); an empty optional is null.
  void out_at(std::size_t i, double value) { outputs.set_number_at(i, value); }
  void out_at(std::size_t i, const Expr& value) { outputs.set_number_at(i, value.value()); }
  void out_null_at(std::size_t i) { outputs.set_null_at(i); }
  void out_at(std::size_t i, bool value) { outputs.set_flag_at(i, value); }
  void out_at(std::size_t i, const std::string& text) { outputs.set_text_at(i, text); }
  void out_at(std::size_t i, const std::optional<double>& value) {
    if (value) outputs.set_number_at(i, *value);
    else outputs.set_null_at(i);
  }
  // A literal word ("memory"), kept as its view (Outputs::set_word_at); an empty optional is null.
  void out_at(std::size_t i, Word word) { outputs.set_word_at(i, word); }
  void out_at(std::size_t i, const std::optional<Word>& word) {
    if (word) outputs.set_word_at(i, *word);
    else outputs.set_null_at(i);
  }
  void out_at(std::size_t i, const std::optional<std::string>& text) {
    if (text) outputs.set_text_at(i, *text);
    else outputs.set_null_at(i);
  }
  // Whether the caller reads the text output `name` (a sentence is made only if it does).
  bool reads_text(std::string_view name) const {
    if (text_unread.empty()) return true;
    const std::optional<std::size_t> at = outputs.index_of(name);
    return !at || !text_unread[*at];
  }
  // The same by declared position.
  bool reads_text_at(std::size_t i) const { return text_unread.empty() || !text_unread[i]; }
  // Back to an empty result for the same calculator, as constructed (record_steps and text_unread kept): a sweep
  // reuses one Result point after point instead of allocating it again.
  void clear() {
    outputs.clear();
    steps.clear();
    warnings.clear();
    if (!extra.is_null()) extra = nullptr;
  }
  // This result's step sink (numbers-only when record_steps is false).
  Steps log() { return Steps(record_steps ? &steps : nullptr, &warnings); }
  Expr sym(StepText tex, double value) { return log().sym(tex, value); }
  Expr step(StepText label, StepText lhs, const Expr& expr, StepText unit) {
    return log().step(label, lhs, expr, unit);
  }
  void warn(Warning warning) { add_warning(warnings, std::move(warning)); }
};

}  // namespace scalelab
