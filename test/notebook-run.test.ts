/**
 * notebook_run against Jupyter: eval's reference notebooks (the kinds people write: pip installs, pandas, plots,
 * displays, shell commands and magics, errors, everyday Python) run whole through notebook_run and through nbclient,
 * Jupyter's own executor, each in a fresh copy of the project with the notebook in it. The files they store are
 * compared cell by cell: execution counts, and every output (its type, a stream's text, a result's representations
 * and text, an error's name and value). A mismatch is printed as the call that reproduces it. nbformat validates
 * every file runbound wrote.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withoutTerminalEscapes } from "../src/files/visible.js";
import { createRun, type RunOptions } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, HOME, textOf, track } from "./helpers.js";
import { PIP_QUIET, referenceEnvironment } from "./notebooks/reference-env.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const REFERENCE = path.join(ROOT, "test/eval-reference");
const PROJECT = path.join(REFERENCE, "project");
const NOTEBOOKS = readdirSync(path.join(REFERENCE, "notebooks"))
  .filter((n) => n.endsWith(".ipynb"))
  .sort();
const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`notebook_run's cells run confined here: ${bwrap.why}`);

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  execution_count?: number | null;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}
interface Cell {
  cell_type: string;
  source: string | string[];
  metadata: Record<string, unknown>;
  outputs?: Output[];
  execution_count?: number | null;
}
const joined = (s: unknown) => (Array.isArray(s) ? s.join("") : typeof s === "string" ? s : "");
const cellsOf = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { cells: Cell[] }).cells;

/**
 * Where runbound deliberately differs from nbclient, by rule:
 * - consecutive stream messages of one name are one output, as JupyterLab stores them (nbclient keeps the kernel's
 *   flush boundaries, which vary from run to run);
 * - a failed `!cmd` raises (Jupyter prints its output and goes on, so a failed `!pip install` read as success);
 * - no timings in a cell's metadata (nbclient's record_timing; JupyterLab's default stores none).
 */
const FAILED_SHELL_RAISES = /^shell command failed with exit code \d+: /;

function joinStreams(outputs: readonly Output[]): Output[] {
  const out: Output[] = [];
  for (const o of outputs) {
    const last = out.at(-1);
    if (o.output_type === "stream" && last?.output_type === "stream" && last.name === o.name)
      out[out.length - 1] = { ...last, text: joined(last.text) + joined(o.text) };
    else out.push({ ...o });
  }
  return out;
}

/** An output as compared: what differs between two runs of the same code (folders, addresses, timings) replaced. */
function comparable(o: Output, folders: readonly string[]): string {
  const clean = (text: string) => {
    let t = withoutTerminalEscapes(text);
    // Longest first: a folder inside another is replaced whole.
    for (const folder of [...folders].sort((a, b) => b.length - a.length))
      t = t.replaceAll(folder, "<folder>");
    return t
      .replace(/\/\S*?\/ipykernel_\d+\/\d+\.py/g, "<cell>")
      .replace(/0x[0-9a-f]{6,}/g, "0x…")
      .replace(/\d+(\.\d+)? ?(ns|[µμ]s|ms|s)\b/g, "<time>");
  };
  if (o.output_type === "stream") return `stream ${o.name}: ${clean(joined(o.text))}`;
  if (o.output_type === "error")
    return `error ${o.ename}: ${clean(o.evalue ?? "")} | ${clean((o.traceback ?? []).at(-1) ?? "")}`;
  const data = o.data ?? {};
  const count = o.output_type === "execute_result" ? ` Out[${o.execution_count}]` : "";
  return `${o.output_type}${count} [${Object.keys(data).sort().join(", ")}]: ${clean(joined(data["text/plain"]))}`;
}

function nbcheck(files: string[]): { file: string; valid: boolean; error: string | null }[] {
  return new Promise((resolve, reject) => {
    const child = spawn(HOME.python, [path.join(ROOT, "test/notebooks/nbcheck.py"), ...files]);
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`nbcheck exited ${code}`)),
    );
  }) as never;
}

/** nbclient over every notebook: the executed files, and the folder each ran in. */
async function runReference(out: string): Promise<Record<string, string>> {
  const { python, env } = await referenceEnvironment(out);
  const books = NOTEBOOKS.map((n) => path.join(REFERENCE, "notebooks", n));
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const child = spawn(
      python,
      [path.join(ROOT, "test/notebooks/nbclient-execute.py"), PROJECT, out, ...books],
      {
        env,
        cwd: out,
      },
    );
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`nbclient exited ${code}: ${stderr}`)),
    );
  });
}

describe("notebook_run against nbclient, on notebooks of the kinds people write", () => {
  it("stores what Jupyter stores, cell by cell", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "runbound-nbclient-"));
    const reference = runReference(out);
    reference.catch(() => undefined);
    const mismatches: string[] = [];
    const written: string[] = [];
    let raised = 0;
    let compared = 0;
    const folders = [out];
    for (const name of NOTEBOOKS) {
      const workdir = mkdtempSync(path.join(tmpdir(), "runbound-notebook-run-"));
      cpSync(PROJECT, workdir, { recursive: true });
      cpSync(path.join(REFERENCE, "notebooks", name), path.join(workdir, name));
      folders.push(workdir);
      const run = track(
        await createRun({ workdir, approver: "always", lsp: false, ast: false, env: { set: PIP_QUIET } }),
      );
      const link = await run.link({ surface: "full" });
      const where = await call(link, "eval", {
        code: "import sys\nprint(sys.prefix)",
        description: "say where this kernel's environment is",
      });
      folders.push(textOf(where).trim());
      const args = { path: name, cells: "all", reset: true, continue_on_error: true };
      const result = await call(link, "notebook_run", args);
      if (result.isError) mismatches.push(`notebook_run ${JSON.stringify(args)}: refused: ${textOf(result)}`);
      await run.dispose();
      const copy = path.join(out, `runbound-${name}`);
      cpSync(path.join(workdir, name), copy);
      written.push(copy);
    }
    const ran = await reference;
    folders.push(...Object.values(ran), path.join(out, "env"));
    for (const name of NOTEBOOKS) {
      const theirs = cellsOf(path.join(out, name));
      const ours = cellsOf(path.join(out, `runbound-${name}`));
      const original = cellsOf(path.join(REFERENCE, "notebooks", name));
      theirs.forEach((ref, i) => {
        if (ref.cell_type !== "code") return;
        const got = ours[i] as Cell;
        const problems: string[] = [];
        if (got.execution_count !== ref.execution_count)
          problems.push(`execution_count ${got.execution_count} where Jupyter's is ${ref.execution_count}`);
        if (JSON.stringify(got.metadata) !== JSON.stringify(original[i]?.metadata))
          problems.push("the cell's metadata changed");
        let outputs = got.outputs ?? [];
        const shellError = outputs.find(
          (o) => o.output_type === "error" && FAILED_SHELL_RAISES.test(o.evalue ?? ""),
        );
        if (shellError && !(ref.outputs ?? []).some((o) => o.output_type === "error")) {
          raised++;
          outputs = outputs.filter((o) => o !== shellError);
        }
        const want = joinStreams(ref.outputs ?? []).map((o) => comparable(o, folders));
        const have = outputs.map((o) => comparable(o, folders));
        if (JSON.stringify(want) !== JSON.stringify(have))
          problems.push(
            `outputs differ:\n    Jupyter:  ${JSON.stringify(want).slice(0, 600)}\n    runbound: ${JSON.stringify(have).slice(0, 600)}`,
          );
        compared++;
        if (problems.length)
          mismatches.push(
            [
              `${name} cell ${i + 1}: notebook_run {"path": "${name}", "cells": "1-${i + 1}", "continue_on_error": true}`,
              ...problems.map((p) => `  - ${p}`),
            ].join("\n"),
          );
      });
    }
    for (const check of await nbcheck(written))
      if (!check.valid)
        mismatches.push(`${path.basename(check.file)}: nbformat does not validate it: ${check.error}`);
    for (const folder of folders.slice(1))
      if (folder.startsWith(tmpdir())) rmSync(folder, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
    expect(mismatches.join("\n\n")).toBe("");
    expect(compared).toBeGreaterThanOrEqual(90);
    // The rule was applied where it applies: the comparison compared.
    expect(raised).toBe(2);
    // Seven notebooks through runbound and through nbclient side by side: over a minute on 2 busy cores.
  }, 240_000);
});

/** An nbformat 4.5 notebook of code cells (and a kernelspec of `language`). */
function book(sources: string[], language = "python", name = "python3"): string {
  return `${JSON.stringify(
    {
      cells: sources.map((source, i) => ({
        cell_type: "code",
        execution_count: null,
        id: `cell${String(i + 1).padStart(4, "0")}`,
        metadata: {},
        outputs: [],
        source,
      })),
      metadata: { kernelspec: { display_name: name, language, name } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;
}

async function kernelRun(
  files: Record<string, string>,
  options: (workdir: string) => Partial<RunOptions> = () => ({}),
) {
  const workdir = mkdtempSync(path.join(tmpdir(), "runbound-notebook-"));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workdir, name)), { recursive: true });
    writeFileSync(path.join(workdir, name), content);
  }
  const run = track(
    await createRun({ workdir, approver: "always", lsp: false, ast: false, ...options(workdir) }),
  );
  return {
    workdir,
    run,
    link: await run.link({ surface: "full" }),
    file: (name: string) => readFileSync(path.join(workdir, name), "utf8"),
  };
}

describe("notebook_run's faults and refusals", () => {
  it("stops at the first error by default, leaving the cells after it as they were, and says so", async () => {
    const { link, file } = await kernelRun({ "a.ipynb": book(["x = 20", "x / 0", "print('after')"]) });
    const before = JSON.parse(file("a.ipynb")).cells[2];
    const result = await call(link, "notebook_run", { path: "a.ipynb" });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toMatch(
      /── cell 2 \(id cell0002\) In \[2\]: error\n[\s\S]*ZeroDivisionError: division by zero/,
    );
    expect(text).toContain("── cell 3 (id cell0003): not run (cell 2 failed)");
    expect(text).toContain("Stopped: cell 2 failed; the cells after it did not run.");
    expect(text).toContain("Stored the outputs of 2 cells in a.ipynb.");
    const cells = JSON.parse(file("a.ipynb")).cells;
    expect(cells[1].outputs[0]).toMatchObject({ output_type: "error", ename: "ZeroDivisionError" });
    expect(cells[2]).toEqual(before);
    expect((result.structuredContent as { cells: { status: string }[] }).cells.map((c) => c.status)).toEqual([
      "ok",
      "error",
      "not run",
    ]);
  });

  it("a notebook changed on disk while its cells ran keeps the change; the outputs are shown, not stored", async () => {
    const { link, file } = await kernelRun({
      "a.ipynb": book(["open('a.ipynb', 'a').write('\\n')  # someone saves it meanwhile", "print('done')"]),
    });
    const result = await call(link, "notebook_run", { path: "a.ipynb" });
    expect(textOf(result)).toMatch(
      /Not stored: a.ipynb changed on disk while its cells ran, so their outputs were not stored/,
    );
    expect(result.structuredContent).toMatchObject({ stored: false });
    const cells = JSON.parse(file("a.ipynb")).cells;
    expect(cells.map((c: Cell) => c.outputs)).toEqual([[], []]);
    expect(file("a.ipynb").endsWith("\n\n")).toBe(true);
  });

  it("a notebook changed after the call was approved, or since the run read it, runs nothing", async () => {
    const cell = "open('ran.txt', 'w').write('ran')";
    const { link, file, workdir } = await kernelRun({ "a.ipynb": book([cell]) }, (dir) => ({
      approver: async (request) => {
        // The person approves the code they are shown, then the file changes before the call goes on.
        if (request.tool === "notebook_run" && request.summary.includes("ran.txt"))
          writeFileSync(path.join(dir, "a.ipynb"), book([cell.replace("ran.txt", "other.txt")]));
        return { allow: true };
      },
    }));
    const swapped = await call(link, "notebook_run", { path: "a.ipynb" });
    expect(swapped.isError).toBe(true);
    expect(textOf(swapped)).toMatch(/changed on disk after this call was checked and approved; nothing ran/);
    await call(link, "notebook", { path: "a.ipynb" });
    writeFileSync(path.join(workdir, "a.ipynb"), book(["open('third.txt', 'w').write('ran')"]));
    const stale = await call(link, "notebook_run", { path: "a.ipynb" });
    expect(textOf(stale)).toMatch(/changed on disk since this run last read it/);
    expect(readdirSync(workdir).sort()).toEqual(["a.ipynb"]);
    expect(file("a.ipynb")).toContain("third.txt");
  });

  it("runs a notebook in its own folder, as Jupyter does, and eval's cells stay in the workdir", async () => {
    const { link, file } = await kernelRun({
      "reports/week.ipynb": book(["import os\nos.getcwd()", "open('data.csv').read()"]),
      "reports/data.csv": "a,b\n",
    });
    const result = await call(link, "notebook_run", { path: "reports/week.ipynb" });
    expect(textOf(result)).toMatch(/reports'\n[\s\S]*'a,b\\n'/);
    const after = await call(link, "eval", {
      code: "import os\nos.getcwd()",
      description: "where eval's cells run after the notebook",
    });
    expect(textOf(after)).not.toContain("reports");
    expect(JSON.parse(file("reports/week.ipynb")).cells[1].outputs[0].data["text/plain"]).toEqual([
      "'a,b\\n'",
    ]);
  });

  it("a JavaScript notebook runs in the run's JavaScript kernel; another language is refused", async () => {
    const { link, file } = await kernelRun({
      "js.ipynb": book(["const a = 2;", "a * 21", "console.log('from node')"], "javascript", "javascript"),
      "r.ipynb": book(["1 + 1"], "R", "ir"),
    });
    const result = await call(link, "notebook_run", { path: "js.ipynb" });
    expect(result.isError, textOf(result)).toBeFalsy();
    const cells = JSON.parse(file("js.ipynb")).cells as Cell[];
    expect(cells[1]?.outputs?.[0]).toMatchObject({
      output_type: "execute_result",
      data: { "text/plain": ["42"] },
    });
    expect(cells[2]?.outputs?.[0]).toMatchObject({
      output_type: "stream",
      name: "stdout",
      text: ["from node\n"],
    });
    const r = await call(link, "notebook_run", { path: "r.ipynb" });
    expect(textOf(r)).toMatch(
      /r.ipynb is a notebook in R \(kernel ir\); notebook_run runs Python, JavaScript and TypeScript notebooks/,
    );
    expect(file("r.ipynb")).toBe(book(["1 + 1"], "R", "ir"));
  });

  it("a kernel that dies mid-notebook ends the run there; what ran before is stored", async () => {
    const { link, file } = await kernelRun({
      "a.ipynb": book(["print('first')", "import os\nos._exit(1)", "print('never')"]),
    });
    const result = await call(link, "notebook_run", { path: "a.ipynb" });
    const statuses = (result.structuredContent as { cells: { status: string }[] }).cells.map((c) => c.status);
    expect(statuses).toEqual(["ok", "died", "not run"]);
    expect(textOf(result)).toMatch(/The kernel (died|was lost) during the cell/);
    expect(JSON.parse(file("a.ipynb")).cells[0].outputs).toEqual([
      { name: "stdout", output_type: "stream", text: ["first\n"] },
    ]);
  });

  it("a cell that hangs is interrupted on the idle budget; Jupyter's KeyboardInterrupt is stored", async () => {
    const { link, file } = await kernelRun(
      { "a.ipynb": book(["import time\ntime.sleep(60)", "print('next')"]) },
      () => ({ kernels: { idleSeconds: 2 } }),
    );
    const result = await call(link, "notebook_run", { path: "a.ipynb" });
    expect(textOf(result)).toContain("The cell was interrupted: no output within the idle budget.");
    expect(textOf(result)).toContain("not run (cell 1 was interrupted)");
    expect(JSON.parse(file("a.ipynb")).cells[0].outputs[0]).toMatchObject({
      output_type: "error",
      ename: "KeyboardInterrupt",
    });
  });

  it("bounds its answer on a notebook that prints megabytes; the file keeps every output", async () => {
    const { link, file } = await kernelRun({
      "a.ipynb": book(
        Array.from({ length: 12 }, (_, i) => `print('${String.fromCharCode(65 + i)}' * 30000)`),
      ),
    });
    const result = await call(link, "notebook_run", { path: "a.ipynb" });
    const text = textOf(result);
    expect(text.length).toBeLessThan(140_000);
    expect(text).toMatch(/\(output not shown: the answer's budget; read it with notebook cells "\d+"\)/);
    const cells = JSON.parse(file("a.ipynb")).cells as Cell[];
    expect(cells.every((c) => joined(c.outputs?.[0]?.text).length === 30_001)).toBe(true);
  });

  it("a cell cannot call notebook_run or eval through tool(): it would wait for its own kernel", async () => {
    const { link } = await kernelRun({ "a.ipynb": book(["1"]) });
    const result = await call(link, "eval", {
      code: "try:\n    tool('notebook_run', {'path': 'a.ipynb'})\nexcept RuntimeError as e:\n    print(e)",
      description: "call notebook_run from inside a cell",
    });
    expect(textOf(result)).toContain(
      'tool("eval") and tool("notebook_run") cannot be called from inside a cell',
    );
  });
});
