/**
 * Changes made by anything but runbound's write tools reach the servers: a cell that writes a new module, a file
 * deleted behind runbound's back, a `git checkout` of another branch — the workdir is watched and each server is
 * sent didChangeWatchedFiles for what it registered, its open documents re-sent or closed.
 */
import { execFileSync } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { OutsideChanges } from "../src/lsp/server/outside-changes.js";
import type { LspSupervisor } from "../src/lsp/server/supervisor.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const TS = {
  "tsconfig.json": '{ "compilerOptions": { "strict": true, "module": "nodenext", "target": "es2022" } }\n',
  "package.json": '{ "type": "module" }\n',
  "src/a.ts": "export function helper(n: number): number {\n  return n * 2;\n}\n",
  "src/b.ts": 'import { helper } from "./a.js";\nexport const two = helper(1);\n',
};

describe("changes made elsewhere reach the servers", () => {
  it("pyright: a module a cell writes is found by the next call (the import it could not resolve before)", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1.0"\n',
      "shop/__init__.py": "",
      "shop/main.py": "from shop.extra import bonus\nprint(bonus(1))\n",
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "full" });
    const before = textOf(await call(client, "lsp", { action: "diagnostics", file: "shop/main.py" }));
    expect(before).toMatch(/Import "shop\.extra" could not be resolved/);
    const cell = await call(client, "eval", {
      description: "write the module that main imports",
      code: "open('shop/extra.py', 'w').write('def bonus(n):\\n    return n + 1\\n')",
    });
    expect(cell.isError, textOf(cell)).toBeFalsy();
    await waitForBatch(run);
    const definition = await call(client, "lsp", {
      action: "definition",
      file: "shop/main.py",
      line: 2,
      symbol: "bonus",
    });
    expect(textOf(definition)).toMatch(/^shop\/extra\.py:1 {2}def bonus\(n\):$/);
  });

  it("tsgo: a file deleted outside runbound is gone from references", async () => {
    const workdir = await workdirWith(TS);
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "readonly" });
    const refs = () =>
      call(client, "lsp", { action: "references", file: "src/a.ts", symbol: "helper" }).then(textOf);
    // b.ts is opened on the server by a call there.
    await call(client, "lsp", { action: "hover", file: "src/b.ts", line: 2, symbol: "helper" });
    expect(await refs()).toMatch(
      /^\(no `line` given: line 1 is the one line where "helper" occurs in code\)\n3 references in 2 files:/,
    );
    await rm(path.join(workdir, "src/b.ts"));
    await waitForBatch(run);
    expect(await refs()).toMatch(/\n1 reference in 1 file:\nsrc\/a\.ts\n {2}1 {2}export function helper/);
  });

  it("a branch switch: its new file is in references, its error in the project-wide check", async () => {
    const workdir = await workdirWith(TS);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: workdir,
        stdio: "pipe",
      });
    git("init", "-q", "-b", "main");
    git("add", ".");
    git("commit", "-qm", "main");
    git("checkout", "-qb", "broken");
    await writeFile(
      path.join(workdir, "src/c.ts"),
      'import { helper } from "./a.js";\nexport const s: string = helper(3);\n',
    );
    git("add", ".");
    git("commit", "-qm", "broken");
    git("checkout", "-q", "main");
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "readonly" });
    const refs = () =>
      call(client, "lsp", { action: "references", file: "src/a.ts", symbol: "helper" }).then(textOf);
    expect(await refs()).toMatch(
      /^\(no `line` given: line 1 is the one line where "helper" occurs in code\)\n3 references in 2 files:/,
    );
    git("checkout", "-q", "broken");
    await waitForBatch(run);
    expect(await refs()).toMatch(
      /\n5 references in 3 files:[\s\S]*\nsrc\/c\.ts\n {2}1 {2}import \{ helper \}/,
    );
    const check = textOf(await call(client, "lsp", { action: "diagnostics", file: "*" }));
    expect(check).toContain("src/c.ts:2 error: Type 'number' is not assignable to type 'string'. [TS2322]");
  });
});

/** Lets the watcher see the change (its batch is then sent by the next call, without waiting for it to settle). */
async function waitForBatch(run: { resource(name: "lsp"): { outside: { batches: number } } | undefined }) {
  const outside = run.resource("lsp")!.outside;
  const before = outside.batches;
  for (let i = 0; i < 50 && outside.batches === before; i++) await new Promise((r) => setTimeout(r, 100));
}

describe("watching a huge tree", () => {
  it("stops adding folders at its cap, says so in status, and the servers still answer", async () => {
    const files: Record<string, string> = { ...TS };
    for (let i = 0; i < 5100; i++) files[`gen/d${Math.floor(i / 100)}/e${i}/x.txt`] = "";
    const workdir = await workdirWith(files);
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "readonly" });
    expect(
      textOf(await call(client, "lsp", { action: "hover", file: "src/b.ts", line: 2, symbol: "helper" })),
    ).toMatch(/^```typescript\n.*helper/);
    let status = "";
    for (let i = 0; i < 100 && !/more folders are not watched/.test(status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = textOf(await call(client, "lsp", { action: "status" }));
    }
    expect(status).toMatch(
      /\nChanges made outside runbound's tools are watched in 5000 folders; \d+ more folders are not watched \(the cap is 5000\)/,
    );
  });
});

describe("a workdir deleted under a live run", () => {
  it("does not take the host down: the watch's question about the folder above it is answered, not thrown", async () => {
    // The folder gone as the watch starts (a harness cleaning up before dispose): chokidar then watches the folder
    // above, for the workdir to come back, and asks whether to ignore it — an ignore-rules error there was an
    // unhandled rejection, which ends a Node host by default.
    const workdir = path.join(await workdirWith(TS), "gone");
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    const outside = new OutsideChanges({ workdir } as unknown as LspSupervisor);
    try {
      outside.start();
      await new Promise((r) => setTimeout(r, 500));
      expect(rejections.map(String)).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
      await outside.dispose();
    }
  });
});
