/**
 * eval and debug a project in the environment its own tool made. debug as VS Code does it: debugpy's adapter from runbound's
 * environment, the program under the environment's interpreter (nothing installed there), confined — for uv's
 * `.venv` (the project an editable install), poetry's in-project and cache environments, pipenv's, a plain
 * `venv`, an activated VIRTUAL_ENV or CONDA_PREFIX, and the pyenv version `.python-version` names. Each: a program
 * that imports the project's package, a breakpoint in the package, its locals, step out.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, HOME, textOf, track } from "./helpers.js";

const TOOLS = path.resolve(import.meta.dirname, "../.tools/python-tools/bin");
const toolsThere = spawnSync(path.join(TOOLS, "uv"), ["--version"]).status === 0;
if (process.env.CI && !toolsThere)
  throw new Error("the test needs uv, poetry and pipenv: node scripts/setup.mjs");
const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`the test needs bubblewrap: ${bwrap.why}`);

/** The base interpreter runbound's environment rests on: the one every tool here makes its environment from. */
const BASE = (() => {
  const made = spawnSync(HOME.python, ["-c", "import sys; print(sys._base_executable)"], {
    encoding: "utf8",
  });
  return made.stdout.trim();
})();

const PACKAGE = "def total(items):\n    acc = 0\n    for n in items:\n        acc += n\n    return acc\n";
const MAIN = "import sys\nfrom shop import total\nresult = total([1, 2, 3])\nprint(sys.prefix, result)\n";

let scratch: string;
const saved: Record<string, string | undefined> = {};
/** A variable of the harness's environment for this test (the discovery reads it when debug resolves). */
function setVariable(name: string, value: string) {
  if (!(name in saved)) saved[name] = process.env[name];
  process.env[name] = value;
}
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
    delete saved[name];
  }
});
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A project with its package in src/shop (a pyproject that builds it), a program beside it; its folder. */
function project(name: string, extra: Record<string, string> = {}): string {
  scratch ??= mkdtempSync(path.join(tmpdir(), "runbound-envs-"));
  const dir = path.join(scratch, name);
  const build = name.startsWith("poetry")
    ? '[tool.poetry]\npackages = [{ include = "shop", from = "src" }]\n\n[build-system]\nrequires = ["poetry-core>=2.0"]\nbuild-backend = "poetry.core.masonry.api"\n'
    : '[tool.setuptools.packages.find]\nwhere = ["src"]\n\n[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n';
  const files: Record<string, string> = {
    "pyproject.toml": `[project]\nname = "shop-${name}"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n\n${build}`,
    "src/shop/__init__.py": PACKAGE,
    "main.py": MAIN,
    ...extra,
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function tool(dir: string, command: string, args: string[], env: Record<string, string> = {}) {
  const done = spawnSync(path.join(TOOLS, command), args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PIPENV_YES: "1", ...env },
    timeout: 240_000,
  });
  expect(done.status, `${command} ${args.join(" ")}: ${done.stderr}${done.stdout}`).toBe(0);
}

/** debug in `dir`: adapters names `label`; a breakpoint in the package stops there under `env`'s interpreter. */
async function debugsIn(dir: string, label: string, env: string, prefix = env, pkg = "src/shop/__init__.py") {
  const run = track(
    await createRun({
      workdir: dir,
      conversationId: `env-${path.basename(dir)}`,
      approver: "always",
      lsp: false,
      confine: "required",
    }),
  );
  const client = await run.link({ surface: "full" });
  const adapters = textOf(await call(client, "debug", { operation: "adapters" }));
  expect(adapters).toContain(`debugpy: usable — ${label} interpreter ${path.join(env, "bin", "python")}`);
  await call(client, "debug", { operation: "breakpoints", file: pkg, lines: [4] });
  const stopped = await call(client, "debug", { operation: "launch", program: "main.py" });
  expect(stopped.structuredContent, textOf(stopped)).toMatchObject({
    state: "stopped",
    location: { path: pkg, line: 4 },
  });
  // The program's locals, in the stop's answer.
  expect(textOf(stopped)).toMatch(/items = \[1, 2, 3\]/);
  const where = textOf(
    await call(client, "debug", { operation: "evaluate", expression: "__import__('sys').prefix" }),
  );
  expect(where).toContain(prefix);
  expect(textOf(await call(client, "debug", { operation: "evaluate", expression: "n" }))).toBe("n = 1 (int)");
  await call(client, "debug", { operation: "breakpoints", file: pkg, lines: [] });
  const out = await call(client, "debug", { operation: "step_out" });
  expect(out.structuredContent, textOf(out)).toMatchObject({ location: { path: "main.py", line: 3 } });
  await run.dispose();
}

describe.skipIf(!toolsThere || !bwrap.ok)("debug in the environment a project's own tool made", () => {
  it("uv: .venv with the project installed editable (a .pth path line)", async () => {
    const dir = project("uv");
    tool(dir, "uv", ["sync", "--python", BASE], { UV_CACHE_DIR: path.join(scratch, "uv-cache") });
    await debugsIn(dir, "the project's .venv", path.join(dir, ".venv"));
  }, 300_000);

  it("poetry: its environment in the cache, and in-project", async () => {
    const dir = project("poetry");
    const cache = path.join(scratch, "poetry-cache");
    tool(dir, "poetry", ["env", "use", BASE], { POETRY_CACHE_DIR: cache });
    tool(dir, "poetry", ["install"], { POETRY_CACHE_DIR: cache });
    const envs = path.join(cache, "virtualenvs");
    // (poetry keeps its envs.toml there too.)
    const [made] = readdirSync(envs).filter((n) => n !== "envs.toml");
    expect(made).toMatch(/^shop-poetry-[\w-]{8}-py3\.\d+$/);
    setVariable("POETRY_CACHE_DIR", cache);
    await debugsIn(dir, "poetry's environment", path.join(envs, made!));
    const inProject = project("poetry-in-project");
    tool(inProject, "poetry", ["env", "use", BASE], {
      POETRY_CACHE_DIR: cache,
      POETRY_VIRTUALENVS_IN_PROJECT: "true",
    });
    tool(inProject, "poetry", ["install"], {
      POETRY_CACHE_DIR: cache,
      POETRY_VIRTUALENVS_IN_PROJECT: "true",
    });
    await debugsIn(inProject, "the project's .venv", path.join(inProject, ".venv"));
  }, 300_000);

  it("pipenv: its environment in WORKON_HOME, the project installed editable", async () => {
    const dir = project("pipenv", { Pipfile: '[packages]\nshop-pipenv = {path = ".", editable = true}\n' });
    const home = path.join(scratch, "pipenv-home");
    tool(dir, "pipenv", ["install", "--python", BASE], { WORKON_HOME: home });
    const [made] = readdirSync(home);
    expect(made).toMatch(/^pipenv-[\w-]{8}$/);
    setVariable("WORKON_HOME", home);
    await debugsIn(dir, "pipenv's environment", path.join(home, made!));
  }, 300_000);

  it("a plain venv, an activated VIRTUAL_ENV and CONDA_PREFIX, with the package on the path", async () => {
    const dir = project("venv");
    const venv = path.join(dir, "venv");
    expect(spawnSync(BASE, ["-m", "venv", "--without-pip", venv]).status).toBe(0);
    const site = (env: string) => {
      const lib = readdirSync(path.join(env, "lib")).find((n) => n.startsWith("python3"))!;
      return path.join(env, "lib", lib, "site-packages");
    };
    // As an editable install would put it: a path line.
    writeFileSync(path.join(site(venv), "shop.pth"), `${path.join(dir, "src")}\n`);
    await debugsIn(dir, "the project's venv", venv);
    for (const variable of ["VIRTUAL_ENV", "CONDA_PREFIX"]) {
      const outside = path.join(scratch, `activated-${variable}`);
      expect(spawnSync(BASE, ["-m", "venv", "--without-pip", outside]).status).toBe(0);
      const bare = project(`bare-${variable}`);
      writeFileSync(path.join(site(outside), "shop.pth"), `${path.join(bare, "src")}\n`);
      setVariable(variable, outside);
      await debugsIn(bare, variable, outside);
      delete process.env[variable];
    }
  }, 300_000);

  it("eval: cells run in poetry's cache environment when it has ipykernel, confined, and install into the run's layer over it", async () => {
    const dir = project("poetry-kernel");
    const cache = path.join(scratch, "poetry-kernel-cache");
    tool(dir, "poetry", ["env", "use", BASE], { POETRY_CACHE_DIR: cache });
    const envs = path.join(cache, "virtualenvs");
    const [made] = readdirSync(envs).filter((n) => n !== "envs.toml");
    const env = path.join(envs, made!);
    // ipykernel as a linked environment provides it: runbound's site-packages by a path line.
    const lib = readdirSync(path.join(env, "lib")).find((n) => n.startsWith("python3"))!;
    const runbound = readdirSync(path.join(HOME.venv, "lib")).find((n) => n.startsWith("python3"))!;
    writeFileSync(
      path.join(env, "lib", lib, "site-packages", "linked.pth"),
      `${path.join(HOME.venv, "lib", runbound, "site-packages")}\n${path.join(dir, "src")}\n`,
    );
    setVariable("POETRY_CACHE_DIR", cache);
    const run = track(await createRun({ workdir: dir, approver: "always", lsp: false, confine: "required" }));
    const client = await run.link({ surface: "full" });
    const cell = (code: string) =>
      call(client, "eval", { code, description: "see which environment runs cells" });
    const where = await cell(
      "import sys, shop\nprint([p for p in sys.path if p.startswith(" +
        JSON.stringify(env) +
        ")], shop.total([2, 3]))",
    );
    expect(textOf(where)).toBe(`['${path.join(env, "lib", lib, "site-packages")}'] 5`);
    const satisfied = await cell("%pip install six");
    expect(textOf(satisfied)).toMatch(/Requirement already satisfied: six in /);
  }, 300_000);

  it(".python-version: the pyenv version it names, its prefix read as pyenv does", async () => {
    // A pyenv root of this test's own: versions/3.98.1's python is the base interpreter (which runs as itself).
    const pyenv = path.join(scratch, "pyenv");
    const installed = path.join(pyenv, "versions", "3.98.1");
    mkdirSync(path.join(installed, "bin"), { recursive: true });
    symlinkSync(BASE, path.join(installed, "bin", "python"));
    // The package beside the program, on its path as the program's folder.
    const dir = project("pyenv", { ".python-version": "3.98\n", "shop/__init__.py": PACKAGE });
    setVariable("PYENV_ROOT", pyenv);
    const real = spawnSync(BASE, ["-c", "import sys; print(sys.prefix)"], { encoding: "utf8" }).stdout.trim();
    await debugsIn(dir, "pyenv's 3.98.1 (.python-version)", installed, real, "shop/__init__.py");
  }, 300_000);
});
