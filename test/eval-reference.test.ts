/**
 * eval against Jupyter: the notebooks in eval-reference/notebooks (the kinds people write: a first cell of `!pip
 * install` and `%pip install`, pandas, plots, displays, shell commands and magics, errors, everyday Python) run cell
 * by cell through runbound — confined and on the host — and by nbclient, Jupyter's own executor, on the same kernel
 * environment (a layer over runbound's, as a run's kernel has one). Per cell: an error exactly when the reference
 * errs, with its name; as many images; every word of the reference's text (as a notebook shows it) in runbound's.
 * A mismatch is printed as the call that reproduces it.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import type { ToolResult } from "../src/tool-result.js";
import { call, textOf, track } from "./helpers.js";
import { PIP_QUIET, referenceEnvironment } from "./notebooks/reference-env.js";

const HERE = path.join(import.meta.dirname, "eval-reference");
const PROJECT = path.join(HERE, "project");
const NOTEBOOKS = readdirSync(path.join(HERE, "notebooks"))
  .filter((n) => n.endsWith(".ipynb"))
  .sort()
  .map((n) => path.join(HERE, "notebooks", n));
const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`the confined half needs bubblewrap: ${bwrap.why}`);

interface ReferenceCell {
  source: string;
  text: string;
  images: number;
  error: { name: string; value: string } | null;
}
type Reference = Record<string, ReferenceCell[]>;

/**
 * Where runbound deliberately differs from Jupyter, by rule: a failed `!cmd` raises (Jupyter prints its output and
 * goes on, so a failed `!pip install` read as success).
 */
const FAILED_SHELL_RAISES = /^shell command failed with exit code \d+: /;

/** Words of three or more characters: what a cell printed, without numbers, timings or addresses. */
function words(text: string): Set<string> {
  return new Set(text.match(/\b[A-Za-z_][A-Za-z0-9_]{2,}\b/g) ?? []);
}

/** What differs between two kernels of the same code: the file a cell compiles to (in the kernel's TMPDIR). */
function normalized(text: string): string {
  return text.replace(/\/\S*?\/ipykernel_\d+\/\d+\.py/g, "<cell>");
}

/** The reference: nbclient on a layer of runbound's environment (its site-packages by a .pth), with pip in it. */
async function runReference(): Promise<Reference> {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-nbclient-"));
  const { python, env } = await referenceEnvironment(dir);
  const out = path.join(dir, "reference.json");
  return new Promise<Reference>((resolve, reject) => {
    let stderr = "";
    const child = spawn(python, [path.join(HERE, "nbclient-reference.py"), PROJECT, out, ...NOTEBOOKS], {
      env,
      cwd: dir,
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.on("exit", (status) => {
      if (status !== 0) return reject(new Error(`nbclient exited ${status}: ${stderr}`));
      resolve(JSON.parse(readFileSync(out, "utf8")) as Reference);
      rmSync(dir, { recursive: true, force: true });
    });
  });
}

interface Answer {
  text: string;
  images: number;
  status: string;
  error?: { name: string; value: string };
}

/** Every notebook's cells through eval in one run (a fresh kernel for each notebook, as nbclient starts one). */
async function runThrough(confine: "required" | "off"): Promise<Record<string, Answer[]>> {
  const workdir = mkdtempSync(path.join(tmpdir(), "runbound-notebooks-"));
  cpSync(PROJECT, workdir, { recursive: true });
  const run = track(
    await createRun({ workdir, approver: "always", lsp: false, confine, env: { set: PIP_QUIET } }),
  );
  const client = await run.link({ surface: "full" });
  const answers: Record<string, Answer[]> = {};
  try {
    const where = await call(client, "eval", {
      code: "import sys, json\nprint(json.dumps(sys.prefix))",
      description: "say where this kernel's environment is",
    });
    const layer = JSON.parse(textOf(where)) as string;
    for (const book of NOTEBOOKS) {
      const cells = codeCells(book);
      const got: Answer[] = [];
      for (const [i, source] of cells.entries()) {
        const result = (await call(client, "eval", {
          code: source,
          description: "run the next cell of the notebook",
          ...(i === 0 ? { reset: true } : {}),
        })) as ToolResult;
        // A refused call (no structured result) is a mismatch the report shows with its text, not a crash of the test.
        const s = (result.structuredContent ?? { status: "refused", images: 0 }) as {
          status: string;
          images: number;
          error?: Answer["error"];
        };
        const text = textOf(result).replaceAll(workdir, "<workdir>").replaceAll(layer, "<layer>");
        got.push({ text, images: s.images, status: s.status, ...(s.error ? { error: s.error } : {}) });
      }
      answers[path.basename(book, ".ipynb")] = got;
    }
  } finally {
    await run.dispose();
    rmSync(workdir, { recursive: true, force: true });
  }
  return answers;
}

function codeCells(book: string): string[] {
  const nb = JSON.parse(readFileSync(book, "utf8")) as {
    cells: { cell_type: string; source: string | string[] }[];
  };
  return nb.cells
    .filter((c) => c.cell_type === "code")
    .map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
}

/** Every way runbound's answer to a cell differs from the reference's, each with the call that reproduces it. */
function mismatches(reference: Reference, answers: Record<string, Answer[]>, place: string): string[] {
  const found: string[] = [];
  for (const [book, cells] of Object.entries(reference)) {
    for (const [i, ref] of cells.entries()) {
      const got = answers[book]?.[i];
      const problems: string[] = [];
      if (!got) problems.push("no answer");
      else {
        const deliberate = !ref.error && got.error && FAILED_SHELL_RAISES.test(got.error.value);
        if (!deliberate && Boolean(ref.error) !== (got.status === "error"))
          problems.push(
            `reference ${ref.error ? `errs (${ref.error.name})` : "does not err"}, runbound's status is ${got.status}`,
          );
        if (ref.error && got.error && ref.error.name !== got.error.name)
          problems.push(`error ${got.error.name} where the reference's is ${ref.error.name}`);
        if (ref.images !== got.images)
          problems.push(`${got.images} images where the reference has ${ref.images}`);
        const have = words(normalized(got.text));
        const expected = [
          ...words(normalized(`${ref.text}\n${ref.error ? `${ref.error.name} ${ref.error.value}` : ""}`)),
        ];
        const missing = expected.filter((w) => !have.has(w));
        if (missing.length)
          problems.push(`words of the reference missing: ${missing.slice(0, 12).join(", ")}`);
      }
      if (problems.length)
        found.push(
          [
            `${place} ${book} cell ${i + 1} (after its cells 1–${i}, in a fresh kernel): eval ${JSON.stringify({ code: ref.source })}`,
            ...problems.map((p) => `  - ${p}`),
            `  reference: ${JSON.stringify(ref.text.slice(0, 400))}`,
            `  runbound:  ${JSON.stringify(got?.text.slice(0, 400))}`,
          ].join("\n"),
        );
    }
  }
  return found;
}

describe("eval against nbclient, on notebooks of the kinds people write", () => {
  let reference: Promise<Reference>;
  beforeAll(() => {
    reference = runReference();
    reference.catch(() => undefined);
  });
  afterAll(async () => {
    await reference.catch(() => undefined);
  });

  it.each([
    ["confined", "required"],
    ["host", "off"],
  ] as const)(
    "%s: every cell answers as Jupyter's does",
    async (place, confine) => {
      if (confine === "required" && !bwrap.ok) return expect(process.env.CI).toBeFalsy();
      const answers = await runThrough(confine);
      const ref = await reference;
      const cells = Object.values(ref).flat();
      expect(cells.length).toBeGreaterThanOrEqual(90);
      expect(mismatches(ref, answers, place).join("\n\n")).toBe("");
      // The rule is checked where it applies, and the reference did err where it should: the comparison compared.
      const answered = Object.values(answers).flat();
      expect(answered.filter((a) => a.error && FAILED_SHELL_RAISES.test(a.error.value))).toHaveLength(2);
      expect(cells.filter((c) => c.error).length).toBeGreaterThanOrEqual(15);
      expect(cells.filter((c) => c.images > 0).length).toBeGreaterThanOrEqual(8);
    },
    300_000,
  );
});
