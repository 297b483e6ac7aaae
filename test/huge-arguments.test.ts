/**
 * A refusal that names a bad argument quotes it — and a megabyte argument was quoted whole, filling the answer to its
 * 200,000-character budget (~50,000 tokens of the model's context for one wrong call). Every echo of a value the
 * call gave is clipped, with its length said, and made visible.
 */
import { describe, expect, it } from "vitest";
import { commandBackend, createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const BIG = "Z".repeat(1_000_000);
const SAID = /1,000,00\d characters/;

describe("a huge argument in a refusal", () => {
  it("is quoted clipped, with its length, by every tool that names it", async () => {
    const workdir = await workdirWith({
      "package.json": '{ "name": "p", "type": "module" }\n',
      "tsconfig.json": '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      "a.ts": "export const one = 1;\nconsole.log(one);\n",
    });
    const fast = commandBackend("sh", ["-c", "cat > /dev/null; echo ok"]);
    const run = track(await createRun({ workdir, approver: "always", kernels: false, vibe: { fast } }));
    const client = await run.link({ surface: "full" });
    const refusals: [string, Record<string, unknown>][] = [
      ["lsp", { action: "definition", file: "a.ts", line: 1, symbol: BIG }],
      ["lsp", { action: "references", file: "a.ts", symbol: BIG }],
      ["lsp_rename", { file: "a.ts", line: 1, symbol: BIG, new_name: "two" }],
      ["lsp_rename", { file: "a.ts", line: 1, symbol: "one", new_name: BIG }],
      ["ast_grep", { pattern: "console.log($A)", path: ".", language: BIG }],
      ["ast_edit", { pattern: "console.log($A)", rewrite: "x", path: ".", language: BIG }],
      [
        "ast_grep",
        { rule: { pattern: "console.log($A)" }, constraints: { [BIG]: { regex: "x" } }, path: "a.ts" },
      ],
      ["resolve", { edit_id: BIG, action: "accept" }],
      ["vibe_wait", { worker_id: BIG }],
      ["vibe_kill", { worker_id: BIG }],
      ["apply_patch", { patch: `*** Begin Patch\n${BIG}\n*** End Patch\n` }],
      [BIG, {}],
      ["read", { path: "a.ts", [BIG]: 1 }],
    ];
    for (const [name, args] of refusals) {
      const result = await call(client, name, args);
      const text = textOf(result);
      expect(result.isError, text.slice(0, 200)).toBe(true);
      expect(text.length, `${name} ${Object.keys(args)}: ${text.slice(0, 200)}`).toBeLessThan(1_000);
      expect(text).toMatch(SAID);
    }
    // Ten thousand unknown arguments: five named, the rest counted.
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 1]));
    const text = textOf(await call(client, "read", { path: "a.ts", ...many }));
    expect(text).toContain("unknown argument `k4`; 9,995 more unknown arguments");
    expect(text.length).toBeLessThan(1_000);
  });

  it("an invisible character in an echoed value is shown, not passed on", async () => {
    const workdir = await workdirWith({ "a.ts": "export const one = 1;\n" });
    const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
    const client = await run.link({ surface: "full" });
    const text = textOf(await call(client, "resolve", { edit_id: "e\u202E1\u001b[2J", action: "accept" }));
    expect(text).toContain('There is no staged edit "e\\u{202E}1\\u{1B}[2J".');
  });
});
