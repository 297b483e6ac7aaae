/**
 * A kernel that dies: between cells, the next cell says its state is gone (the server used to restart it behind
 * runbound's back, and the next cell failed on names it no longer had); as it starts, the eval says so at once with
 * what the kernel wrote to stderr, instead of waiting until the harness's request timed out — and the next eval
 * tries again.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, HOME, textOf, track, workdirWith } from "./helpers.js";

const label = "a cell for the kernel death tests";

describe("a kernel that dies", () => {
  it("between cells: the next cell runs in a fresh kernel and says the state is gone", async () => {
    const run = track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const cell = async (code: string) => textOf(await call(client, "eval", { code, description: label }));
    // The process exits a second after the cell answered: no cell is running when it goes.
    expect(
      await cell("import os, threading\nx = 41\nthreading.Timer(1.0, lambda: os._exit(3)).start()"),
    ).toBe("(no output)");
    await new Promise((r) => setTimeout(r, 6000));
    expect(await cell("'x' in globals()")).toBe(
      "(a fresh kernel: the last one died between cells, so earlier state is lost)\nFalse",
    );
    expect(await cell("x = 1\nx + 1")).toBe("2");
    // runbound's JavaScript kernel too.
    const js = async (code: string) =>
      textOf(await call(client, "eval", { code, language: "javascript", description: label }));
    expect(await js("globalThis.y = 41; setTimeout(() => process.exit(3), 1000); 'set'")).toBe("'set'");
    await new Promise((r) => setTimeout(r, 6000));
    expect(await js("typeof globalThis.y")).toBe(
      "(a fresh kernel: the last one died between cells, so earlier state is lost)\n'undefined'",
    );
  });

  it("as it starts: said at once with its stderr, nothing left waiting, and the next eval tries again", async () => {
    const workdir = await workdirWith();
    await mkdir(path.join(workdir, ".venv/bin"), { recursive: true });
    const python = path.join(workdir, ".venv/bin/python");
    // Has ipykernel by its folders (what runbound looks at), and fails as a kernel.
    const ipykernel = path.join(workdir, ".venv/lib/python3.11/site-packages/ipykernel");
    await mkdir(ipykernel, { recursive: true });
    await writeFile(path.join(ipykernel, "__init__.py"), "");
    await writeFile(python, '#!/bin/sh\necho "this environment is broken: no kernel here" >&2\nexit 3\n');
    await chmod(python, 0o755);
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await call(client, "eval", { code: "print(1)", description: label });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        "The python kernel (.venv/bin/python) exited before it answered, so no cell ran. Its stderr ended with:\n" +
          "this environment is broken: no kernel here\n" +
          "It is the project's environment, used because it has ipykernel: repair it (`.venv/bin/python -m ipykernel_launcher --help` shows the fault), or uninstall ipykernel from it to run cells in runbound's environment; the next eval tries again.",
      );
    }
    // Repaired (here: the environment hands over to runbound's interpreter), the next eval runs.
    await writeFile(python, `#!/bin/sh\nexec ${HOME.python} "$@"\n`);
    expect(textOf(await call(client, "eval", { code: "print(1 + 1)", description: label }))).toBe("2");
  });
});
