// The Node version check that scripts/setup.sh runs against web/package-lock.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { satisfies } from "../../scripts/node-engines.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

const cases = [
  ["v18.20.4", "^20.19.0 || >=22.12.0", false],
  ["v20.18.0", "^20.19.0 || >=22.12.0", false],
  ["v20.19.0", "^20.19.0 || >=22.12.0", true],
  ["v22.11.0", "^20.19.0 || >=22.12.0", false],
  ["v22.23.3", "^20.19.0 || >=22.12.0", true],
  ["v20.20.2", ">=22.12.0", false],
  ["v22.12.0", ">=22.12.0", true],
  ["v18.0.0", ">= 14.6", true],
  ["v12.0.0", ">= 14.6", false],
  ["v16.0.0", "^10 || ^12 || >=14", true],
  ["v13.0.0", "^10 || ^12 || >=14", false],
  ["v13.8.0", "^10 || ^12 || ^13.7 || ^14 || >=15.0.1", true],
  ["v20.1.0", "~20.1", true],
  ["v20.2.0", "~20.1", false],
  ["v20.5.0", ">=20 <21", true],
  ["v21.0.0", ">=20 <21", false],
  ["v18.5.0", "16 - 18", true],
  ["v19.0.0", "16 - 18", false],
  ["v19.0.0", "*", true],
];

for (const [version, range, expected] of cases) {
  test(`${version} ${expected ? "satisfies" : "misses"} "${range}"`, () => {
    assert.equal(satisfies(version, range), expected);
  });
}

test("the command names the package a too-old Node misses, and exits 1", () => {
  const run = (version) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, ["scripts/node-engines.mjs", "web/package-lock.json", "--version", version], { cwd: root, encoding: "utf8" }) };
    } catch (e) {
      return { code: e.status, out: e.stdout };
    }
  };
  const old = run("v18.20.4");
  assert.equal(old.code, 1);
  assert.match(old.out, /vite needs node \^20\.19\.0 \|\| >=22\.12\.0/);
  const current = run("v22.23.3");
  assert.equal(current.code, 0, current.out);
});
