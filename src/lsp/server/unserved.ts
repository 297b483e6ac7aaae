/**
 * Languages in the workdir that no server of the run serves and that runbound cannot install one for: no server for
 * them is published where runbound installs from (npm, PyPI, the Go proxy, crates.io, Maven Central, Debian) in a form
 * it runs. `lsp status` names them with what a harness can do instead, rather than saying nothing.
 */
import path from "node:path";
import { fileNamesNear } from "../../files/roots.js";
import type { ServerSpec } from "../catalog.js";

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
};

/** Each such language with a file in the workdir or up to two levels below, and how many files it has there. */
export function unservedLanguages(workdir: string, specs: readonly ServerSpec[]): [string, number][] {
  const served = new Set(specs.flatMap((s) => Object.keys(s.languages)));
  const counts = new Map<string, number>();
  for (const name of fileNamesNear(workdir)) {
    const ext = path.extname(name).toLowerCase();
    const language = served.has(ext) ? undefined : UNSERVED[ext];
    if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}
