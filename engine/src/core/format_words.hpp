// Numbers inside sentences (warnings, refusals, suggestions), by the formatter's rules: grouped
// digits and whole counts, as people write them. Apart from format.hpp so that a message's words
// do not rebuild every file that formats a number.
#pragma once
#include <string>
#include <string_view>

namespace scalelab {

// A number in a sentence: "4,096", "0.5", "1.5M" (format_quantity's "count"; not plain's "4096").
std::string grouped(double value);
// A count of whole things in a sentence: "1,024 chips", "1 chip"; a count that is not whole is
// rounded and says so: "about 977 sequences" (never "976.5625 sequences").
std::string count_words(double value, std::string_view noun);

}  // namespace scalelab
