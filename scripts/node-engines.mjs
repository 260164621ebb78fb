// Does this Node satisfy every `engines.node` range in a package-lock.json?
//   node scripts/node-engines.mjs web/package-lock.json [--version v22.1.0]
// Prints the packages whose range this Node misses; exits 0 when none does, 1 otherwise.
// Optional packages (platform binaries npm skips) do not count. No dependencies: it must run
// on the oldest Node a reader may have (Debian 12's 18), before anything is installed.
import { readFileSync } from "node:fs";

const parse = (v) => {
  const m = /^v?(\d+)(?:\.(\d+|[x*]))?(?:\.(\d+|[x*]))?/.exec(v.trim());
  if (!m) throw new Error(`not a version: "${v}"`);
  const part = (s) => (s === undefined || s === "x" || s === "*" ? null : Number(s));
  return [Number(m[1]), part(m[2]), part(m[3])];
};
const cmp = (a, b) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};
// The first version past a partial one: "1.2" → 1.3.0, "1" → 2.0.0.
const bumpPartial = ([M, m, p]) => (m === null ? [M + 1, 0, 0] : p === null ? [M, m + 1, 0] : [M, m, p + 1]);

// One comparator ("^20.19.0", ">=22", "~1.2", "1.x", "*") → [lowest, below] bounds.
function bounds(c) {
  if (c === "" || c === "*" || c === "x") return [[0, 0, 0], null];
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(c);
  const op = m[1] ?? "", v = parse(m[2]), [M, mi, p] = v, low = [M, mi ?? 0, p ?? 0];
  switch (op) {
    case ">=": return [low, null];
    case ">": return [bumpPartial(v), null];
    case "<": return [[0, 0, 0], low];
    case "<=": return [[0, 0, 0], bumpPartial(v)];
    case "~": return [low, mi === null ? [M + 1, 0, 0] : [M, mi + 1, 0]];
    case "^": return [low, M > 0 || mi === null ? [M + 1, 0, 0] : mi > 0 || p === null ? [0, mi + 1, 0] : [0, 0, p + 1]];
    default: return [low, bumpPartial(v)];
  }
}

export function satisfies(version, range) {
  const v = parse(version);
  return range.split("||").some((set) => {
    const spaced = set.trim().replace(/(\^|~|>=|<=|>|<|=)\s+/g, "$1");
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(spaced);
    const comparators = hyphen ? [`>=${hyphen[1]}`, `<=${hyphen[2]}`] : spaced.split(/\s+/);
    return comparators.every((c) => {
      const [low, below] = bounds(c);
      return cmp(v, low) >= 0 && (below === null || cmp(v, below) < 0);
    });
  });
}

function main(argv) {
  const lockfile = argv[0];
  const at = argv.indexOf("--version");
  const version = at >= 0 ? argv[at + 1] : process.version;
  const lock = JSON.parse(readFileSync(lockfile, "utf8"));
  const misses = [];
  for (const [path, pkg] of Object.entries(lock.packages ?? {})) {
    const range = pkg.engines?.node;
    if (!range || pkg.optional) continue;
    if (!satisfies(version, range)) misses.push(`${path.replace(/^.*node_modules\//, "") || "(root)"} needs node ${range}`);
  }
  if (misses.length) {
    console.log(`node ${version} is too old for ${lockfile}:\n  ${misses.join("\n  ")}`);
    return 1;
  }
  console.log(`node ${version} satisfies every engines.node range in ${lockfile}`);
  return 0;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  process.exitCode = main(process.argv.slice(2));
}
