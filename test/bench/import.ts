/**
 * `import("runbound")` in a fresh process, from the built package (dist/, what a harness loads), against a fresh
 * process importing the MCP SDK v2's server package (what any MCP-based harness loads anyway). Rounds alternate; medians.
 * Memory: the fresh process's resident set after the import, for both.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ROUNDS = 15;

/** Milliseconds the import took and the resident MB after it, in a fresh Node. */
function fresh(specifier: string): { ms: number; mb: number } {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); const ms = performance.now() - t; console.log(JSON.stringify({ ms, mb: process.memoryUsage().rss / 1048576 }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return JSON.parse(out.trim()) as { ms: number; mb: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchImport() {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "ignore" });
  const ours: { ms: number; mb: number }[] = [];
  const base: { ms: number; mb: number }[] = [];
  const runbound = path.join(ROOT, "dist/src/index.js");
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(fresh(runbound));
    base.push(fresh("@modelcontextprotocol/server"));
  }
  return [
    {
      name: "import('runbound'), fresh process",
      ours: median(ours.map((r) => r.ms)),
      base: median(base.map((r) => r.ms)),
      baseline: "import of the MCP SDK v2's server",
    },
    {
      name: "  resident MB after it (as ms column)",
      ours: median(ours.map((r) => r.mb)),
      base: median(base.map((r) => r.mb)),
      baseline: "the same, MB",
    },
  ];
}
