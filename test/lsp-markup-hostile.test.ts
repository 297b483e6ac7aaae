/**
 * A hover is made plain text in time linear in what the server sent. A repository's doc comment is the server's
 * hover: a line with a long run of spaces inside it was tried from each space by `/ {2,}$/` (80,000 spaces: 2 s of
 * the host's thread; a million, minutes) — in a read-tier call.
 */
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

describe("hover markup from a hostile repository", () => {
  it("tsgo: a doc comment with a million spaces inside a line is answered at once, cut at its budget", async () => {
    const workdir = await workdirWith({
      "tsconfig.json":
        '{ "compilerOptions": { "strict": true, "module": "nodenext", "target": "es2022" } }\n',
      "package.json": '{ "type": "module" }\n',
      "src/a.ts": `/** Doubles${" ".repeat(1_000_000)}n. */\nexport function helper(n: number): number {\n  return n * 2;\n}\n`,
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "readonly" });
    const hover = await call(client, "lsp", { action: "hover", file: "src/a.ts", line: 2, symbol: "helper" });
    const text = textOf(hover);
    expect(hover.isError, text).toBeFalsy();
    expect(text).toMatch(/^```typescript\nfunction helper\(n: number\): number\n```\nDoubles {100}/);
    expect(text).toMatch(/\n… \(trimmed: \d+ more characters not shown\)$/);
    expect(text.length).toBeLessThan(5_000);
  }, 120_000);
});
