/**
 * A read-tier call writes nothing in the workdir, whatever the repository's configuration asks of the tools it
 * drives: a tsconfig's `incremental` (or `composite`) made the project check write its build info — to the path
 * `tsBuildInfoFile` names, so a plan surface's `diagnostics "*"` overwrote a source file — and `generateTrace` wrote a
 * folder of traces.
 */
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";

describe("a read-tier project check writes nothing", () => {
  for (const options of [
    { incremental: true, tsBuildInfoFile: "./victim.ts", generateTrace: "./trace" },
    { composite: true, tsBuildInfoFile: "./victim.ts" },
  ]) {
    it(`TypeScript 7 under a tsconfig with ${Object.keys(options).join(", ")}: the files are as they were, the finding is found`, async () => {
      const workdir = await workdirWith({
        "package.json": '{ "name": "p", "type": "module" }\n',
        "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, noEmit: true, ...options } }),
        "a.ts": 'export const x: number = "one";\n',
        "victim.ts": "// precious\nexport const kept = 1;\n",
      });
      const before = await treeOf(workdir);
      const run = track(await createRun({ workdir, approver: "always", kernels: false }));
      const client = await run.link({ surface: "plan" });
      const text = textOf(await call(client, "lsp", { action: "diagnostics", file: "*" }));
      expect(text).toContain("a.ts:1 error: Type 'string' is not assignable to type 'number'. [TS2322]");
      expect(await treeOf(workdir)).toEqual(before);
    });
  }
});
