// A calculator's outputs, declared once beside it: each row says what the schema lists (name,
// unit, label, doc, nullable) and, where the calculator's figures hold the value, the member it is
// read from (`&DecodeFigures::step_s`). The registry gives the rows to the schema (outputs_of), and
// write_members is the result writer, made from the same rows when the calculator is compiled.
#pragma once
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/output.hpp"
#include "core/result.hpp"

namespace scalelab {

// Where a row's value is held in the figures F: nothing (the calculator writes it where it makes
// it, by output_index), or one member of a type a result keeps without a copy (an empty optional
// is written as null).
template <class F>
using OutputMember = std::variant<std::monostate, double F::*, std::optional<double> F::*, bool F::*, Word F::*,
                                  std::optional<Word> F::*, std::optional<bool> F::*>;

// One output row: an Output (name, unit, label, doc, nullable: what the schema lists and the
// TypeScript types are generated from) and the member of F it is read from, if any. The rows are
// written flat, {"step_s", "s", "step time", "…", false, &DecodeFigures::step_s}: a constructor,
// so the flat row needs no braces around its Output (clang's -Wmissing-braces, the fuzz build).
// A row made by training_run's layout search ends with kByLayoutSearch (Output::layout_search).
inline constexpr bool kByLayoutSearch = true;
template <class F>
struct OutputRow : Output {
  OutputMember<F> from{};  // the member of F it is read from, if any
  constexpr OutputRow(std::string_view name_, std::string_view unit_, std::string_view label_, std::string_view doc_,
                      bool nullable_ = false, OutputMember<F> from_ = {}, bool layout_search_ = false)
      : Output{name_, unit_, label_, doc_, nullable_, layout_search_}, from(from_) {}
};

// The position of the output named `prefix` + `name` + `suffix` in `table` (Output or OutputRow
// rows): expected_tokens_per_s_low is ("expected_", "tokens_per_s", "_low"). Called when the
// calculator is compiled (output_index, expected_output, band_outputs), a name the table lacks does
// not compile. constexpr, not consteval: clang 14 refuses a consteval call on a consteval
// function's parameter.
template <class Row, std::size_t N>
constexpr std::size_t named_output(const Row (&table)[N], std::string_view prefix, std::string_view name,
                                   std::string_view suffix = "") {
  for (std::size_t i = 0; i < N; ++i) {
    const std::string_view n = table[i].name;
    if (n.size() == prefix.size() + name.size() + suffix.size() && n.starts_with(prefix) && n.ends_with(suffix) &&
        n.substr(prefix.size(), name.size()) == name) {
      return i;
    }
  }
  throw "not an output of this table";
}

// The position of output `name` in `table`, found when the calculator is compiled.
template <class Row, std::size_t N>
consteval std::size_t output_index(const Row (&table)[N], std::string_view name) {
  return named_output(table, "", name);
}

// The schema's declarations of a table of Output or OutputRow rows, in its order.
template <class Row, std::size_t N>
std::vector<Output> outputs_of(const Row (&table)[N]) {
  std::vector<Output> out;
  out.reserve(N);
  for (const Output& row : table) out.push_back(row);
  return out;
}

// Each name once, and a row read from an optional member nullable (an empty optional is written
// as null): checked where each table is defined (static_assert(well_formed(kRows))).
template <class F, std::size_t N>
consteval bool well_formed(const OutputRow<F> (&rows)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (rows[i].name == rows[j].name) return false;
    }
    const std::size_t k = rows[i].from.index();
    if ((k == 2 || k == 5 || k == 6) && !rows[i].nullable) return false;
  }
  return true;
}

namespace output_rows_detail {
template <const auto& Rows, std::size_t I, class F>
inline void write_member(const F& f, Result& r) {
  constexpr auto from = Rows[I].from;
  if constexpr (from.index() == 6) {  // an optional flag (fits, where memory is unknown): null when empty
    const std::optional<bool>& v = f.*std::get<6>(from);
    if (v) r.out_at(I, *v);
    else r.out_null_at(I);
  } else if constexpr (from.index() != 0) {
    r.out_at(I, f.*std::get<from.index()>(from));
  }
}
}  // namespace output_rows_detail

// Writes every row of `Rows` read from a member of `f`, by its position (one out_at per row,
// unrolled when compiled: the same code as a writer written out by hand). Rows without a member
// are left for the calculator; Outputs::check names any it forgets.
template <const auto& Rows, class F>
inline void write_members(const F& f, Result& r) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (output_rows_detail::write_member<Rows, I>(f, r), ...);
  }(std::make_index_sequence<std::size(Rows)>());
}

}  // namespace scalelab
