import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workdirWith } from "./helpers.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIOME = path.join(ROOT, "node_modules", ".bin", "biome");

describe("the project's lint", () => {
  it("fails on an import circle made of type-only imports (the rule counts them), and passes without it", async () => {
    const dir = await workdirWith({
      "a.ts": 'import type { B } from "./b.js";\n\nexport interface A {\n  b?: B;\n}\n',
      "b.ts": 'import type { A } from "./a.js";\n\nexport interface B {\n  a?: A;\n}\n',
      "c.ts": 'import type { A } from "./a.js";\n\nexport type C = A;\n',
    });
    // The project's own rules, over the temporary folder.
    const config = JSON.parse(readFileSync(path.join(ROOT, "biome.json"), "utf8")) as Record<string, unknown>;
    delete config.$schema;
    config.files = { includes: ["**"] };
    writeFileSync(path.join(dir, "biome.json"), JSON.stringify(config));
    const lint = (...files: string[]) => spawnSync(BIOME, ["lint", ...files], { cwd: dir, encoding: "utf8" });
    const circle = lint("a.ts", "b.ts");
    expect(circle.status).not.toBe(0);
    expect(circle.stdout + circle.stderr).toContain("lint/suspicious/noImportCycles");
    writeFileSync(path.join(dir, "b.ts"), "export interface B {\n  name?: string;\n}\n");
    const none = lint("a.ts", "b.ts", "c.ts");
    expect(none.stdout + none.stderr).not.toContain("noImportCycles");
    expect(none.status).toBe(0);
  });
});
