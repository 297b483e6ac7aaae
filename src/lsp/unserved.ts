/**
 * Languages in the workdir that no server of the run serves and that runbound cannot install one for: no server for
 * them is published where runbound installs from (npm, PyPI, the Go proxy, crates.io, Maven Central, Debian) in a form
 * it runs. `lsp status` names them with what a harness can do instead, rather than saying nothing.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ServerSpec } from "./catalog.js";

const UNSERVED: Readonly<Record<string, string>> = {
  ".java": "Java",
  ".kt": "Kotlin",
  ".kts": "Kotlin",
  ".rb": "Ruby",
  ".cs": "C#",
  ".swift": "Swift",
  ".scala": "Scala",
  ".hs": "Haskell",
  ".ex": "Elixir",
  ".exs": "Elixir",
  ".lua": "Lua",
  ".vue": "Vue",
};

/** How many entries are looked at: the workdir and the folders one level below it, never a whole tree. */
const LOOKED_AT = 5000;

/** Each such language with a file in the workdir or one level below, and how many files it has there. */
export function unservedLanguages(workdir: string, specs: readonly ServerSpec[]): [string, number][] {
  const served = new Set(specs.flatMap((s) => Object.keys(s.languages)));
  const counts = new Map<string, number>();
  let seen = 0;
  const count = (dir: string, depth: number) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++seen > LOOKED_AT) return;
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      if (entry.isDirectory() && depth === 0) count(path.join(dir, entry.name), 1);
      const ext = path.extname(entry.name).toLowerCase();
      const language = entry.isFile() && !served.has(ext) ? UNSERVED[ext] : undefined;
      if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
    }
  };
  count(workdir, 0);
  return [...counts].sort((a, b) => b[1] - a[1]);
}
