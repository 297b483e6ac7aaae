/** runbound's own package folder (where it ships python/ and examples/), found from this module's location. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "runbound"
    ) {
      cached = dir;
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error("runbound cannot find its own package.json");
  }
}
