#!/usr/bin/env bash
# The formatters and the linter, held to the files listed in scripts/formatted.txt, one
# "TOOL PATH" a line: clang-format (.clang-format) on C++, prettier (web/.prettierrc.json) on
# TypeScript and JavaScript, eslint (web/eslint.config.mjs) on JavaScript. A file joins the list
# once it passes (format it when you change it, then add its line); the tree is never reformatted
# in one change. Exits non-zero when a listed file does not pass. Prettier and ESLint come from
# FORMAT_TOOLS_DIR (setup.sh installs the pinned versions there); where one is missing its lines
# are skipped, and the summary says how many.
#   scripts/format-check.sh          check the listed files
#   scripts/format-check.sh --list   print the lines of every file of the tree that passes today
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LIST=scripts/formatted.txt
CLANG_FORMAT="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
PRETTIER="$FORMAT_TOOLS_DIR/node_modules/.bin/prettier"
ESLINT="$FORMAT_TOOLS_DIR/node_modules/.bin/eslint"

# passes TOOL PATH: 0 when PATH passes TOOL, 1 when it does not, 2 when TOOL is not installed.
passes() {
  case "$1" in
    clang-format) [[ -n "$CLANG_FORMAT" ]] || return 2; "$CLANG_FORMAT" --dry-run -Werror "$2" >/dev/null 2>&1 ;;
    prettier) [[ -x "$PRETTIER" ]] || return 2; "$PRETTIER" --config web/.prettierrc.json --check "$2" >/dev/null 2>&1 ;;
    eslint) [[ -x "$ESLINT" ]] || return 2; "$ESLINT" --config web/eslint.config.mjs --no-warn-ignored "$2" >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}

if [[ "${1:-}" == --list ]]; then
  for f in $(git ls-files '*.cpp' '*.hpp'); do passes clang-format "$f" && echo "clang-format $f"; done
  for f in $(git ls-files 'web/*.ts' 'web/*.mjs'); do passes prettier "$f" && echo "prettier $f"; done
  for f in $(git ls-files 'web/*.mjs' 'bench/*.mjs'); do passes eslint "$f" && echo "eslint $f"; done
  exit 0
fi

# Each tool runs once over its listed files (one Node start-up, not one a file); only when that
# fails is each file run alone, to name the ones that do not pass.
declare -A files=()
bad=()
while read -r tool f; do
  [[ -z "$tool" || "$tool" == \#* ]] && continue
  if [[ ! -f "$f" ]]; then bad+=("$f: listed, not in the tree"); continue; fi
  files[$tool]+="$f "
done < "$LIST"

checked=0 skipped=0
for tool in "${!files[@]}"; do
  read -r -a listed <<< "${files[$tool]}"
  status=0
  case "$tool" in
    clang-format) [[ -n "$CLANG_FORMAT" ]] || status=2
      ((status)) || "$CLANG_FORMAT" --dry-run -Werror "${listed[@]}" >/dev/null 2>&1 || status=1 ;;
    prettier) [[ -x "$PRETTIER" ]] || status=2
      ((status)) || "$PRETTIER" --config web/.prettierrc.json --check "${listed[@]}" >/dev/null 2>&1 || status=1 ;;
    eslint) [[ -x "$ESLINT" ]] || status=2
      ((status)) || "$ESLINT" --config web/eslint.config.mjs --no-warn-ignored "${listed[@]}" >/dev/null 2>&1 || status=1 ;;
    *) status=1 ;;
  esac
  case "$status" in
    0) checked=$((checked + ${#listed[@]})) ;;
    2) skipped=$((skipped + ${#listed[@]})) ;;
    *) for f in "${listed[@]}"; do
         if passes "$tool" "$f"; then checked=$((checked + 1)); else bad+=("$f: $tool"); fi
       done ;;
  esac
done

for b in "${bad[@]}"; do echo "format: $b"; done
echo "format: $checked listed files pass, ${#bad[@]} do not, $skipped skipped (formatter not installed)"
((${#bad[@]} == 0))
