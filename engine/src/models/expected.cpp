#include "models/expected.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <span>
#include <string>

#include "core/format.hpp"
#include "schema/labels.hpp"

namespace scalelab {
namespace {

// Whether `word` stands between spaces in `list` (" datacenter-gpu tpu "). Found in place, word by
// word (a space found with memchr, a word told apart by its length first), with no string made:
// band_for asks it of every band on every evaluation, at every point of a sweep.
bool listed(std::string_view list, std::string_view word) {
  for (std::size_t at = list.find(' '); at != std::string_view::npos;) {
    const std::size_t next = list.find(' ', at + 1);
    if (next == std::string_view::npos) return false;  // the last word has no space after it
    if (next - at - 1 == word.size() && list.compare(at + 1, word.size(), word) == 0) return true;
    at = next;
  }
  return false;
}

std::string two_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

// "published runs of decode on datacenter chips reach 0.25–0.93 of the bound, 18 runs"
std::string band_words(const Band& b) {
  return std::string("published runs of ") + b.title + " reach " + two_digits(b.low) + "–" + two_digits(b.high) +
         (b.estimate ? " of the estimate, " : " of the bound, ") + std::to_string(b.runs) + " runs";
}


// A setting in words, from its label: "context (tokens)" → {"context", " tokens"}; a setting with a
// count noun in the schema (labels.hpp) takes it: {"devices", "", "device"}.
// A setting whose parameter is a quantity (bytes, FLOPs) keeps that unit for format_quantity:
// {"bytes", "", "", "bytes"} reads "268 MB–80 GB".
struct SettingWords {
  std::string name, unit, one;  // one: the name for a count of 1 ("" where the name serves)
  std::string quantity;         // the parameter's unit where it is a quantity ("" for a count)
};
// A parameter labelled with a quantity's own unit word ("bytes", "FLOPs": roofline's and
// collective's sizes) is that quantity.
std::string quantity_unit(std::string_view label) {
  if (label == "bytes") return "bytes";
  if (label == "FLOPs") return "FLOPs";
  return "";
}
SettingWords setting_words(std::string_view calculator, std::string_view setting) {
  if (const CountNoun noun = param_noun(calculator, setting); !noun.many.empty()) {
    return {std::string(noun.many), "", std::string(noun.one), ""};
  }
  const std::string label(param_label(calculator, setting));
  const std::string quantity = quantity_unit(label);
  if (label.empty()) return {std::string(setting), "", "", quantity};
  const std::size_t open = label.find(" (");
  if (open == std::string::npos || label.back() != ')') return {label, "", "", quantity};
  return {label.substr(0, open), quantity.empty() ? " " + label.substr(open + 2, label.size() - open - 3) : "", "",
          quantity};
}

// A setting's value, or its range, in words: a count as digits, a quantity with its unit.
std::string setting_value(const SettingWords& w, double v) {
  return w.quantity.empty() ? format_quantity(v, "count") : format_quantity(v, w.quantity);
}

// A setting and its value in a sentence: "16 chips", "1 concurrent user", "2 devices", "a context of
// 8,192 tokens", "a sequence length of 8,192" (a length, or a label with a unit, takes "a … of"; a
// count comes first).
std::string setting_phrase(const SettingWords& w, const std::string& value, bool one) {
  if (!w.quantity.empty()) {  // "268 MB–80 GB" where the label is the unit's own word, else "a … of 268 MB"
    std::string lower = w.name, unit = w.quantity;
    for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    for (char& ch : unit) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return lower == unit ? value : "a " + w.name + " of " + value;
  }
  if (!w.unit.empty() || w.name.find("length") != std::string::npos) return "a " + w.name + " of " + value + w.unit;
  if (one && !w.one.empty()) return value + " " + w.one;
  const bool plural = !w.name.empty() && w.name.back() == 's';
  return value + " " + (one && plural ? w.name.substr(0, w.name.size() - 1) : w.name);
}

// On a reader's own device (a card, a Mac, a CPU) a count of chips is a count of devices: "this
// setup takes 1 device". The published runs' own counts keep their chips.
SettingWords on_own_device(SettingWords w, ChipKind kind) {
  if (own_device_kind(kind) && w.name == "chips") return {"devices", w.unit, "device", w.quantity};
  return w;
}

// "a, b and c"
std::string and_list(const std::vector<std::string>& parts) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return text;
}

}  // namespace

namespace {

// Whether the limits after an entry's "?" ("fabric=nvlink|ici&kind=tpu") hold for `settings` and the
// chip's kind: each limited setting is given and its value is one of those listed ("kind" is the chip's).
bool limits_hold(std::string_view limits, Settings settings, std::string_view kind) {
  while (!limits.empty()) {
    const std::string_view limit = limits.substr(0, limits.find('&'));
    limits.remove_prefix(std::min(limits.size(), limit.size() + 1));
    const std::string_view name = limit.substr(0, limit.find('=')), values = limit.substr(name.size() + 1);
    bool held = name == "kind" && listed(" " + std::string(values) + " ", kind);
    for (const auto& [setting, value] : settings) {
      held = held || (setting == name && listed(" " + std::string(values) + " ", value));
    }
    if (!held) return false;
  }
  return true;
}

// Whether one of the band's entries (" collective.t_s?fabric=nvlink ") names `calculator`.`output`
// with limits `settings` and the chip's `kind` meet. The entries stand between spaces; each is read
// in place, with no string made per band or call.
bool applies(std::string_view outputs, std::string_view calculator, std::string_view output, Settings settings,
             std::string_view kind) {
  const std::size_t named = calculator.size() + 1 + output.size();  // "calculator.output"
  for (std::size_t at = outputs.find(' '); at != std::string_view::npos;) {
    const std::size_t next = outputs.find(' ', at + 1);
    if (next == std::string_view::npos) return false;
    const std::string_view entry = outputs.substr(at + 1, next - at - 1);
    at = next;
    if (entry.size() < named || entry.compare(0, calculator.size(), calculator) != 0 || entry[calculator.size()] != '.' ||
        entry.compare(calculator.size() + 1, output.size(), output) != 0) {
      continue;
    }
    if (entry.size() == named) return true;
    if (entry[named] != '?') continue;
    std::string spaced(entry.substr(named + 1));
    for (char& c : spaced) c = c == '|' ? ' ' : c;  // "nvlink|ici" is read as the list " nvlink ici "
    if (limits_hold(spaced, settings, kind)) return true;
  }
  return false;
}

// An output's name, `prefix` + `field`, made in place: out_band and out_measured_among write several
// a call, at every point of a sweep ("expected_share_high" is longer than a short string holds).
class OutputName {
 public:
  explicit OutputName(std::string_view prefix) : size_(prefix.copy(text_, sizeof text_)) {}
  // valid until the next call
  std::string_view operator()(std::string_view field) {
    return {text_, size_ + field.copy(text_ + size_, sizeof text_ - size_)};
  }

 private:
  char text_[64];
  std::size_t size_;
};

}  // namespace

namespace {

// Each band's kinds of chip as bits (bit k: ChipKind k): the kinds it applies to, and the kinds its
// runs ran on. Read from the rows' lists once, at the first look-up, and never changed.
struct BandKinds {
  std::uint32_t applies = 0, ran = 0;
};
const std::vector<BandKinds>& band_kinds() {
  static const std::vector<BandKinds> kinds = [] {
    std::vector<BandKinds> out(kBandRowCount);
    for (std::size_t b = 0; b < kBandRowCount; ++b) {
      for (std::size_t k = 0; k <= std::size_t(ChipKind::last_); ++k) {
        if (listed(kBandRows[b].chip_kinds, chip_kind_names()[k])) out[b].applies |= 1u << k;
        if (listed(kBandRows[b].run_kinds, chip_kind_names()[k])) out[b].ran |= 1u << k;
      }
    }
    return out;
  }();
  return kinds;
}

}  // namespace

namespace {

// The band of `calculator`.`output` for `kind` and `settings`, found by a scan of the bands' rows.
const Band* scan_bands(std::string_view calculator, std::string_view output, ChipKind kind, Settings settings) {
  const std::string& kind_name = chip_kind_names()[std::size_t(kind)];
  const std::vector<BandKinds>& kinds = band_kinds();
  for (std::size_t b = 0; b < kBandRowCount; ++b) {
    // the kinds first: most bands are of other kinds
    if ((kinds[b].applies >> std::size_t(kind) & 1u) &&
        applies(kBandRows[b].outputs, calculator, output, settings, kind_name)) {
      return &kBandRows[b];
    }
  }
  return nullptr;
}

// One look-up and its answer, its words copied (a setting's value may be a caller's temporary).
struct BandLookup {
  std::string calculator, output;
  ChipKind kind{};
  std::vector<std::pair<std::string, std::string>> settings;
  const Band* band = nullptr;

  bool asks(std::string_view c, std::string_view o, ChipKind k, Settings s) const {
    return kind == k && calculator == c && output == o && settings.size() == s.size() &&
           std::equal(s.begin(), s.end(), settings.begin(),
                      [](const auto& given, const auto& kept) { return given.first == kept.first && given.second == kept.second; });
  }
};

}  // namespace

// The bands are fixed when the engine is built, so a look-up's answer never changes: the last few
// are kept and given back without a scan. A sweep asks the same ones at every point; a calculator
// asks two to five a call.
const Band* band_for(std::string_view calculator, std::string_view output, ChipKind kind, Settings settings) {
  constexpr std::size_t kKept = 8;
  thread_local std::array<BandLookup, kKept> kept;
  thread_local std::size_t next = 0, used = 0;
  for (std::size_t i = 0; i < used; ++i) {
    if (kept[i].asks(calculator, output, kind, settings)) return kept[i].band;
  }
  BandLookup& slot = kept[next];
  slot.calculator.assign(calculator);
  slot.output.assign(output);
  slot.kind = kind;
  slot.settings.assign(settings.begin(), settings.end());
  slot.band = scan_bands(calculator, output, kind, settings);
  next = (next + 1) % kKept;
  used = std::max(used, next == 0 ? kKept : next);
  return slot.band;
}

void out_expected(const Band* band, const ExpectedOutput& o, double bound, Result& r) {
  if (!band) {
    r.out_null_at(o.low);
    r.out_null_at(o.high);
    return;
  }
  const bool time = o.time;
  std::string label_low, label_high;
  if (r.record_steps) {
    const std::string words(o.words), why = " (" + band_words(*band) + ")";
    label_low = "Expected " + words + (time ? ", shortest" : ", lowest") + why;
    label_high = "Expected " + words + (time ? ", longest" : ", highest") + why;
  }
  const Steps log = r.log();
  Expr b = log.sym("\\text{bound}", bound), lo = log.sym("s_{lo}", band->low), hi = log.sym("s_{hi}", band->high);
  r.out_at(o.low, log.step(label_low, "", time ? b / hi : lo * b, o.unit));
  r.out_at(o.high, log.step(label_high, "", time ? b / lo : hi * b, o.unit));
}

// A kind of chip for people, without the title's examples: "unified memory (Apple, …)" → "unified memory".
std::string kind_words(std::size_t kind) {
  const std::string& title = chip_kind_titles()[kind];
  return title.substr(0, title.find(" ("));
}

// One device of a kind, in a sentence: "a consumer GPU", "a CPU", "a machine with unified memory"
// (a kind named by its memory is a machine that has it).
std::string a_device_of(std::size_t kind) {
  const std::string words = kind_words(kind);
  const std::string tail = words.size() >= 3 ? words.substr(words.size() - 3) : words;
  return tail == "GPU" || tail == "TPU" || tail == "CPU" ? "a " + words : "a machine with " + words;
}

// "TPU and datacenter GPU": the kinds listed between spaces in `list`.
std::string kinds_words(std::string_view list) {
  std::vector<std::string> kinds;
  for (std::size_t k = 0; k < chip_kind_names().size(); ++k) {
    if (listed(list, chip_kind_names()[k])) kinds.push_back(kind_words(k));
  }
  return and_list(kinds);
}

bool below_runs(const Band& band, std::string_view setting, double value) {
  for (const BandRange& range : std::span(band.ranges, band.range_count)) {
    if (range.setting == setting && value < range.low) return true;
  }
  return false;
}

void out_band(const Band* band, std::string_view calculator, ChipKind kind, Setup setup, Result& r,
              const BandOutputs& at) {
  if (!band) {
    for (std::size_t i : {at.runs, at.share_low, at.share_high, at.covered, at.outside}) r.out_null_at(i);
    return;
  }
  r.out_at(at.runs, double(band->runs));
  r.out_at(at.share_low, band->low);
  r.out_at(at.share_high, band->high);
  const std::span<const BandRange> ranges(band->ranges, band->range_count);
  const auto beyond = [&](const BandRange& range, std::string_view name, double value) {
    return range.setting == name && !(value >= range.low && value <= range.high);
  };
  bool any_beyond = false;
  for (const auto& [name, value] : setup) {
    for (const BandRange& range : ranges) any_beyond = any_beyond || beyond(range, name, value);
  }
  const bool other_kind = !(band_kinds()[std::size_t(band - kBandRows)].ran >> std::size_t(kind) & 1u);
  r.out_at(at.covered, !any_beyond && !other_kind);
  // the sentence only where there is something to say and the caller reads it (a sweep does not)
  if ((!any_beyond && !other_kind) || !r.reads_text_at(at.outside)) {
    r.out_null_at(at.outside);
    return;
  }
  std::vector<std::string> theirs, ours;
  for (const auto& [name, value] : setup) {
    for (const BandRange& range : ranges) {
      if (!beyond(range, name, value)) continue;
      const SettingWords words = setting_words(calculator, name);
      const std::string span = range.low == range.high ? setting_value(words, range.low)
                                                         : setting_value(words, range.low) + "–" + setting_value(words, range.high);
      theirs.push_back(setting_phrase(words, span, range.low == 1 && range.high == 1));
      ours.push_back(setting_phrase(on_own_device(words, kind), setting_value(words, value), value == 1));
    }
  }
  std::string runs = "The published runs behind this range", setup_words;
  if (other_kind) {
    runs += " ran on " + kinds_words(band->run_kinds) + " chips";
    setup_words = "this setup runs on " + a_device_of(std::size_t(kind));
  }
  if (!ours.empty()) {
    runs += (other_kind ? " and took " : " took ") + and_list(theirs);
    setup_words += (other_kind ? " and takes " : "this setup takes ") + and_list(ours);
  }
  r.out_at(at.outside, runs + "; " + setup_words + ", so the range is carried beyond what was measured.");
}

void out_measured_among(const Band* band, double share, Result& r, std::string_view prefix) {
  OutputName key(prefix);
  if (!band || band->share_count == 0) {
    r.out_null(key("runs_below"));
    r.out_null(key("among"));
    return;
  }
  const std::span<const double> shares(band->shares, band->share_count);
  std::size_t below = 0, above = 0;
  // a share within a billionth of the reader's is the same one (a published run given back as the
  // reader's measurement stands beside itself, whatever the last bits of either)
  for (double s : shares) {
    below += s < share * (1 - 1e-9);
    above += s > share * (1 + 1e-9);
  }
  const std::size_t same = shares.size() - below - above;
  r.out(key("runs_below"), double(below));
  if (!r.reads_text(key("among"))) {
    r.out_null(key("among"));
    return;
  }
  const std::string figure = band->estimate ? "the estimate" : "the bound";
  std::string text = "Of the " + std::to_string(shares.size()) + " published runs of " + band->title + ", " +
                     std::to_string(below) + " reached a smaller share of " + figure + " than yours, " +
                     (same ? std::to_string(same) + " the same share, " : std::string()) + std::to_string(above) +
                     " a larger one (theirs: " + two_digits(shares.front()) + "–" + two_digits(shares.back()) +
                     "; yours: " + two_digits(share) + ").";
  r.out(key("among"), text);
}

void out_measured_time(const Band* band, std::optional<double> measured_s, double bound_s, std::string_view what,
                       std::string_view prefix, Result& r) {
  const std::string share_name = std::string(prefix) + "share_of_bound";
  if (!measured_s) {
    r.out_null(share_name);
    out_measured_among(nullptr, 0, r, prefix);
    return;
  }
  Expr share = r.step("Share of the " + std::string(what) + " bound you measured", "s",
                      r.sym("T_{bound}", bound_s) / r.sym("T_{measured}", *measured_s), "ratio");
  r.out(share_name, share);
  out_measured_among(band, share.value(), r, prefix);
  if (share.value() > 1) {
    r.warn("The measured " + std::string(what) + " is shorter than its bound: check that the model, chips, prompt "
           "tokens and formats match the run.");
  }
}

}  // namespace scalelab
