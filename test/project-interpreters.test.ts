/**
 * A repository's own interpreter (`.venv/bin/python`) is its code: any program can sit there. eval and debug asked
 * it whether it had ipykernel or debugpy by running it — on the host, outside the run's sandbox, before any cell or
 * debuggee ran confined. What an environment has is now read from its folders; the program is never run to ask.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { environmentHas } from "../src/files/python-env.js";
import { createRun } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, HOME, textOf, track, workdirWith } from "./helpers.js";

const mark = path.join(tmpdir(), `runbound-interpreter-ran-${randomUUID().slice(0, 8)}`);
const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`confinement tests need bubblewrap: ${bwrap.why}`);

afterAll(() => rmSync(mark, { force: true }));

/** A folder laid out as a Python environment, with these files under it. */
async function environment(files: Record<string, string>): Promise<string> {
  const dir = await workdirWith(files);
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  writeFileSync(path.join(dir, "bin", "python"), "#!/bin/sh\nexit 1\n");
  chmodSync(path.join(dir, "bin", "python"), 0o755);
  return dir;
}

describe.skipIf(!bwrap.ok)("a repository's .venv/bin/python in a confined run", () => {
  it("is never run on the host by eval or debug: no mark there; eval says the environment lacks ipykernel, debug runs the program under it, confined", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "app.py": "x = 1\n",
      // It leaves a mark where it runs, then runs as a Python would (debug's launch runs it, in the sandbox).
      ".venv/bin/python": `#!/bin/sh\necho "ran: $*" >> ${mark}\nexec ${HOME.python} "$@"\n`,
    });
    chmodSync(path.join(workdir, ".venv/bin/python"), 0o755);
    const run = track(await createRun({ workdir, conversationId: "venv", approver: "always", lsp: false }));
    expect(run.processes.confinedPlace.kind).toBe("confined");
    const client = await run.link({ surface: "full" });
    const cell = textOf(
      await call(client, "eval", { code: "1 + 1", description: "add two numbers in a cell" }),
    );
    expect(cell).toMatch(
      /^\(this kernel runs in runbound's Python environment, not in the project's \.venv: it has no ipykernel/,
    );
    expect(cell.split("\n").at(-1)).toBe("2");
    // debugpy's adapter comes from runbound's environment; the program runs under the project's interpreter in the
    // sandbox, as a launch runs the project's code — never on the host to ask what it has.
    expect(textOf(await call(client, "debug", { operation: "adapters" }))).toMatch(
      /^debugpy: usable — the project's \.venv interpreter .*\.venv\/bin\/python \(debugpy from runbound's environment\)/m,
    );
    const launch = textOf(await call(client, "debug", { operation: "launch", program: "app.py" }));
    expect(launch).toMatch(/^Launched app\.py under debugpy/);
    expect(existsSync(mark), "the project's interpreter ran on the host").toBe(false);
  });
});

describe("what an environment has, read from its folders", () => {
  it("its own site-packages: a package folder or a module file", async () => {
    expect(environmentHas(path.join(await environment({}), "bin", "python"), "ipykernel")).toBe(false);
    const env = await environment({
      "lib/python3.12/site-packages/ipykernel/__init__.py": "",
      "lib/python3.12/site-packages/six.py": "",
    });
    expect(environmentHas(path.join(env, "bin", "python"), "ipykernel")).toBe(true);
    expect(environmentHas(path.join(env, "bin", "python"), "six")).toBe(true);
    expect(environmentHas(path.join(env, "bin", "python"), "debugpy")).toBe(false);
  });

  it("its base interpreter's packages only when pyvenv.cfg includes them", async () => {
    const base = await environment({ "lib/python3.12/site-packages/debugpy/__init__.py": "" });
    const config = (include: string) =>
      `home = ${path.join(base, "bin")}\ninclude-system-site-packages = ${include}\nversion = 3.12.1\n`;
    const without = await environment({ "pyvenv.cfg": config("false") });
    const withBase = await environment({ "pyvenv.cfg": config("true") });
    expect(environmentHas(path.join(without, "bin", "python"), "debugpy")).toBe(false);
    expect(environmentHas(path.join(withBase, "bin", "python"), "debugpy")).toBe(true);
  });

  it("an editable install: a .pth's folder and a setuptools finder's MAPPING count; its code is never run", async () => {
    const site = "lib/python3.11/site-packages";
    const env = await environment({
      // uv's, hatch's and pip's compat editable: a path line.
      [`${site}/_app.pth`]: "../../../src\n# a comment\n",
      "src/app/__init__.py": "",
      // setuptools' strict editable: an import line, whose finder holds the mapping.
      [`${site}/__editable__.lib-1.0.pth`]: `import __editable___lib_1_0_finder; __editable___lib_1_0_finder.install()\n`,
      [`${site}/__editable___lib_1_0_finder.py`]: `import sys\nMAPPING: dict[str, str] = {'lib': '/elsewhere/lib'}\nNAMESPACES = {}\n`,
      // An import line runs code when Python starts: never here.
      [`${site}/evil.pth`]: `import os; os.system("touch ${mark}")\n`,
    });
    const python = path.join(env, "bin", "python");
    expect(environmentHas(python, "app")).toBe(true);
    expect(environmentHas(python, "lib")).toBe(true);
    expect(environmentHas(python, "debugpy")).toBe(false);
    expect(existsSync(mark)).toBe(false);
    const piped = await environment({ [`${site}/x.py`]: "" });
    execFileSync("mkfifo", [path.join(piped, site, "pipe.pth")]);
    expect(environmentHas(path.join(piped, "bin", "python"), "x")).toBe(true);
  });

  it("a pyvenv.cfg that is a pipe or a gigabyte is not read (the project's file could be either)", async () => {
    const piped = await environment({});
    execFileSync("mkfifo", [path.join(piped, "pyvenv.cfg")]);
    expect(environmentHas(path.join(piped, "bin", "python"), "debugpy")).toBe(false);
    const huge = await environment({});
    execFileSync("truncate", ["-s", "1G", path.join(huge, "pyvenv.cfg")]);
    expect(environmentHas(path.join(huge, "bin", "python"), "debugpy")).toBe(false);
  });
});
