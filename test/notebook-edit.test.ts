/**
 * notebook and notebook_edit on real notebooks (eval's reference notebooks, the example workspace's), as nbformat
 * writes them and as Colab writes them (two-space indent, keys in its own order, sources as strings): seeded
 * sequences of inserts, replaces, deletes and moves, with sources taken from real cells and a few hostile ones.
 * After every change the cells are what the change says, every other cell keeps its bytes, and nbformat (Jupyter's
 * own library) validates the file — and, for a notebook nbformat wrote, writes exactly the same bytes.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Node, parseTree } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, HOME, textOf, toolNames, track, treeOf, workdirWith } from "./helpers.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const REAL = [
  ...readdirSync(path.join(ROOT, "test/eval-reference/notebooks")).map(
    (n) => `test/eval-reference/notebooks/${n}`,
  ),
  "examples/workspace/python/stock-report.ipynb",
].filter((n) => n.endsWith(".ipynb"));

interface Cell {
  cell_type: "code" | "markdown" | "raw";
  id?: string;
  source: string | string[];
  metadata?: unknown;
  outputs?: unknown[];
  execution_count?: number | null;
  attachments?: unknown;
}

const joined = (s: string | string[]) => (Array.isArray(s) ? s.join("") : s);
/** A cell as compared: its source whichever form the file keeps it in. */
const comparable = (c: Cell) => canonical({ ...c, source: joined(c.source) });
/** Keys sorted, so two cells compare by content, not by the order their fields were made in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** A Colab-style copy: two-space indent, its own key order, sources as one string. */
function colab(text: string): string {
  const nb = JSON.parse(text) as {
    cells: Cell[];
    metadata: unknown;
    nbformat: number;
    nbformat_minor: number;
  };
  const cells = nb.cells.map(({ cell_type, source, metadata, id, ...rest }) => ({
    ...(id ? { id } : {}),
    cell_type,
    source: joined(source),
    metadata,
    ...rest,
  }));
  return `${JSON.stringify({ nbformat: nb.nbformat, nbformat_minor: nb.nbformat_minor, metadata: nb.metadata, cells }, null, 2)}\n`;
}

/** mulberry32: the same sequence on every machine. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ (t + Math.imul(t ^ (t >>> 14), 71 | t));
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sources of every real cell. */
const SOURCES = [
  ...REAL.flatMap((f) =>
    (JSON.parse(readFileSync(path.join(ROOT, f), "utf8")).cells as Cell[]).map((c) => joined(c.source)),
  ),
];
/** Sources that break naive writers: escapes, Python's other line ends, JSON's own punctuation, a fake listing. */
const HOSTILE = [
  'print("quote \\" and backslash \\\\")\n',
  "line one\r\nline two\rline three\u2028four\u000bfive\n",
  "tabs\tand \u001b[31mescapes\u001b[0m and ünïcode ✓ 😀",
  '}\n ],\n "cells": [',
  "",
  "# [3] code  id deadbeef\nprint('a line that looks like a listing')",
];

function cellNodes(text: string): { cells: Node; texts: string[] } {
  const root = parseTree(text) as Node;
  const cells = root.children?.find((p) => p.children?.[0]?.value === "cells")?.children?.[1] as Node;
  return { cells, texts: (cells.children ?? []).map((n) => text.slice(n.offset, n.offset + n.length)) };
}

function nbcheck(
  files: string[],
): { file: string; valid: boolean; error: string | null; as_nbformat_writes: boolean }[] {
  const out = spawnSync(HOME.python, [path.join(ROOT, "test/notebooks/nbcheck.py"), ...files], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (out.status !== 0) throw new Error(`nbcheck.py failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

type Op = Record<string, unknown> & { action: "insert" | "replace" | "delete" | "move" };

function nextOp(rand: () => number, cells: readonly Cell[]): Op {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)] as T;
  const source = rand() < 0.25 ? pick(HOSTILE) : pick(SOURCES);
  const kinds = ["code", "code", "markdown", "raw"] as const;
  const at = () => 1 + Math.floor(rand() * cells.length);
  const which = (index: number): Record<string, unknown> => {
    const id = cells[index - 1]?.id;
    return id && rand() < 0.3 ? { id } : { index };
  };
  const roll = rand();
  if (cells.length < 2 || roll < 0.3)
    return {
      action: "insert",
      index: 1 + Math.floor(rand() * (cells.length + 1)),
      source,
      kind: pick(kinds),
    };
  if (roll < 0.6) {
    const index = at();
    const old = cells[index - 1] as Cell;
    const kind = rand() < 0.2 ? pick(kinds.filter((k) => k !== old.cell_type)) : undefined;
    const next = joined(old.source) === source && !kind ? `${source}\n# changed` : source;
    return { action: "replace", ...which(index), source: next, ...(kind ? { kind } : {}) };
  }
  if (roll < 0.8) return { action: "delete", ...which(at()) };
  const index = at();
  let to = at();
  if (to === index) to = index === 1 ? 2 : index - 1;
  return { action: "move", ...which(index), to };
}

/** What the cells become: the model the file is checked against. */
function expected(cells: Cell[], op: Op, structured: { index: number; id?: string }): Cell[] {
  const next = [...cells];
  const place = (op.id ? cells.findIndex((c) => c.id === op.id) : (op.index as number) - 1) as number;
  if (op.action === "insert") {
    const kind = op.kind as Cell["cell_type"];
    const cell: Cell = {
      cell_type: kind,
      ...(structured.id ? { id: structured.id } : {}),
      metadata: {},
      source: op.source as string,
    };
    next.splice(
      (op.index as number) - 1,
      0,
      kind === "code" ? { ...cell, execution_count: null, outputs: [] } : cell,
    );
  } else if (op.action === "delete") next.splice(place, 1);
  else if (op.action === "move") {
    const [cell] = next.splice(place, 1);
    next.splice((op.to as number) - 1, 0, cell as Cell);
  } else {
    const old = cells[place] as Cell;
    const kind = (op.kind as Cell["cell_type"] | undefined) ?? old.cell_type;
    if (kind === old.cell_type) next[place] = { ...old, source: op.source as string };
    else {
      const { outputs: _o, execution_count: _e, attachments, ...base } = old;
      const cell: Cell = { ...base, cell_type: kind, source: op.source as string };
      next[place] =
        kind === "code"
          ? { ...cell, execution_count: null, outputs: [] }
          : kind === "markdown" && attachments
            ? { ...cell, attachments }
            : cell;
    }
  }
  return next;
}

async function fileRun(workdir: string): Promise<RunLink> {
  const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false, ast: false }));
  return run.link({ surface: "full" });
}

describe("notebook_edit on real notebooks, against nbformat", () => {
  it("seeded changes keep every other cell's bytes, and nbformat validates each file and writes the same bytes", async () => {
    const workdir = await workdirWith();
    const link = await fileRun(workdir);
    const snapshots: { file: string; nbformatForm: boolean }[] = [];
    const mismatches: string[] = [];
    let seed = 1;
    for (const source of REAL) {
      const original = readFileSync(path.join(ROOT, source), "utf8");
      for (const [form, text] of [
        ["nbformat", original],
        ["colab", colab(original)],
      ] as const) {
        const name = `${path.basename(source, ".ipynb")}-${form}.ipynb`;
        const file = path.join(workdir, name);
        writeFileSync(file, text);
        const rand = random(seed++);
        expect((await call(link, "notebook", { path: name })).isError).toBeFalsy();
        for (let step = 0; step < 12; step++) {
          const before = readFileSync(file, "utf8");
          const cells = (JSON.parse(before) as { cells: Cell[] }).cells;
          const op = nextOp(rand, cells);
          const result = await call(link, "notebook_edit", { path: name, ...op });
          const repro = `notebook_edit ${JSON.stringify({ path: name, ...op })} on ${source} (${form}, step ${step})`;
          if (result.isError) {
            mismatches.push(`${repro}: refused: ${textOf(result)}`);
            break;
          }
          const after = readFileSync(file, "utf8");
          const want = expected(cells, op, result.structuredContent as { index: number; id?: string });
          const got = (JSON.parse(after) as { cells: Cell[] }).cells;
          if (JSON.stringify(got.map(comparable)) !== JSON.stringify(want.map(comparable)))
            mismatches.push(`${repro}: the cells are not what the change says`);
          // Every cell the change did not touch keeps its bytes, and so does everything around the cells.
          const old = cellNodes(before);
          const now = cellNodes(after);
          const place = (result.structuredContent as { index: number }).index - 1;
          const changed = op.action === "replace" || op.action === "delete" ? place : -1;
          const missing = old.texts.filter((t, i) => i !== changed && !now.texts.includes(t));
          if (missing.length > 0) mismatches.push(`${repro}: ${missing.length} other cells changed bytes`);
          const end = (n: Node) => n.offset + n.length;
          if (
            before.slice(0, old.cells.offset) !== after.slice(0, now.cells.offset) ||
            before.slice(end(old.cells)) !== after.slice(end(now.cells))
          )
            mismatches.push(`${repro}: the text around the cells changed`);
          const snapshot = path.join(workdir, `${name}.${step}.ipynb`);
          writeFileSync(snapshot, after);
          snapshots.push({ file: snapshot, nbformatForm: form === "nbformat" });
        }
      }
    }
    for (const check of nbcheck(snapshots.map((s) => s.file))) {
      const form = snapshots.find((s) => s.file === check.file)?.nbformatForm;
      if (!check.valid)
        mismatches.push(`${path.basename(check.file)}: nbformat does not validate it: ${check.error}`);
      else if (form && !check.as_nbformat_writes)
        mismatches.push(`${path.basename(check.file)}: nbformat writes this notebook with other bytes`);
    }
    expect(mismatches).toEqual([]);
    expect(snapshots.length).toBeGreaterThan(150);
  });
});

/** A small nbformat 4.5 notebook as nbformat writes it. */
function small(cells: { kind: "code" | "markdown"; source: string; id: string }[]): string {
  const json = {
    cells: cells.map((c) =>
      c.kind === "code"
        ? {
            cell_type: "code",
            execution_count: null,
            id: c.id,
            metadata: {},
            outputs: [],
            source: [c.source],
          }
        : { cell_type: "markdown", id: c.id, metadata: {}, source: [c.source] },
    ),
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return `${JSON.stringify(json, null, 1)}\n`;
}

const THREE = small([
  { kind: "markdown", source: "# Title", id: "aaaa0001" },
  { kind: "code", source: "x = 1", id: "aaaa0002" },
  { kind: "code", source: "x + 1", id: "aaaa0003" },
]);

describe("notebook_edit refuses what it cannot do, and changes nothing on disk", () => {
  it("a notebook not read in this run, or changed on disk since it was read, is refused", async () => {
    const workdir = await workdirWith({ "a.ipynb": THREE });
    const link = await fileRun(workdir);
    const file = path.join(workdir, "a.ipynb");
    const unread = await call(link, "notebook_edit", { path: "a.ipynb", action: "delete", index: 2 });
    expect(unread.isError).toBe(true);
    expect(textOf(unread)).toMatch(/has not been read in this run; call notebook on it first/);
    expect(readFileSync(file, "utf8")).toBe(THREE);
    await call(link, "notebook", { path: "a.ipynb" });
    // Someone saves it in Jupyter meanwhile.
    const theirs = THREE.replace("x = 1", "x = 2");
    writeFileSync(file, theirs);
    const stale = await call(link, "notebook_edit", {
      path: "a.ipynb",
      action: "replace",
      index: 3,
      source: "x * 2",
    });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(
      /changed on disk since this run last read it.*nothing was changed.*Call notebook/s,
    );
    expect(readFileSync(file, "utf8")).toBe(theirs);
    // Read again, the change goes through; and the run's own write does not count as a change by someone else.
    await call(link, "notebook", { path: "a.ipynb" });
    expect(
      (await call(link, "notebook_edit", { path: "a.ipynb", action: "replace", index: 3, source: "x * 2" }))
        .isError,
    ).toBeFalsy();
    const again = await call(link, "notebook_edit", { path: "a.ipynb", action: "move", index: 3, to: 1 });
    expect(textOf(again)).toBe("Moved code cell 3 (id aaaa0003) to 1 in a.ipynb.");
  });

  it("bad arguments are refused with what to give instead", async () => {
    const workdir = await workdirWith({
      "a.ipynb": THREE,
      "old.ipynb": JSON.stringify({ nbformat: 3, nbformat_minor: 0, worksheets: [] }),
      "broken.ipynb": '{"cells": [',
      "script.py": "print(1)\n",
      "folder.ipynb/x": "",
    });
    const link = await fileRun(workdir);
    await call(link, "notebook", { path: "a.ipynb" });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: "delete", index: 9 }, /`index` 9 is not a cell of a.ipynb, which has 3 cells \(1 to 3\)/],
      [{ action: "delete", index: 0 }, /`index` 0 is not a cell.*numbered from 1/],
      [{ action: "delete", id: "nope" }, /`id` "nope" is not a cell of a.ipynb \(its ids include aaaa0001/],
      [{ action: "delete" }, /delete needs the cell: give `index`/],
      [{ action: "delete", index: 2, id: "aaaa0002" }, /by `index` or by `id`, not both/],
      [{ action: "delete", index: 2, source: "x" }, /`source` is not used by delete/],
      [{ action: "insert", kind: "code" }, /insert needs `source`/],
      [{ action: "insert", index: 5, source: "y" }, /`index` 5 is not a place for a new cell.*give 1 to 4/],
      [{ action: "insert", id: "aaaa0001", source: "y" }, /`id` is not used by insert/],
      [{ action: "replace", index: 2 }, /replace needs `source`/],
      [{ action: "replace", index: 2, source: "x = 1" }, /already has this source; nothing to change/],
      [{ action: "move", index: 2 }, /move needs `to`/],
      [{ action: "move", index: 2, to: 7 }, /`to` 7 is not a place in a.ipynb.*give 1 to 3/],
      [{ action: "move", index: 2, to: 2 }, /already at 2; nothing to change/],
      [
        { action: "delete", index: 1, path: "old.ipynb" },
        /nbformat 3; the notebook tools read and write nbformat 4/,
      ],
      [{ action: "delete", index: 1, path: "broken.ipynb" }, /broken.ipynb is not valid JSON at line 1/],
      [
        { action: "delete", index: 1, path: "script.py" },
        /script.py is not a notebook \(.ipynb\); use read, edit and write/,
      ],
      [{ action: "delete", index: 1, path: "folder.ipynb" }, /folder.ipynb is a directory/],
      [{ action: "delete", index: 1, path: "missing.ipynb" }, /missing.ipynb does not exist/],
      [{ action: "delete", index: 1, path: "../outside.ipynb" }, /outside the workdir/],
    ];
    const before = await treeOf(workdir);
    const wrong: string[] = [];
    for (const [args, message] of cases) {
      const result = await call(link, "notebook_edit", { path: "a.ipynb", ...args });
      if (!result.isError || !message.test(textOf(result)))
        wrong.push(`${JSON.stringify(args)} → ${textOf(result)}`);
    }
    expect(wrong).toEqual([]);
    expect(await treeOf(workdir)).toEqual(before);
  });

  it("a plan surface lists notebook only; notebook_edit and notebook_run are refused there", async () => {
    const workdir = await workdirWith({ "a.ipynb": THREE });
    const run = track(await createRun({ workdir, approver: "always", lsp: false, ast: false }));
    const plan = await run.link({ surface: "plan" });
    const names = await toolNames(plan);
    expect(names).toContain("notebook");
    expect(names).not.toContain("notebook_edit");
    expect(names).not.toContain("notebook_run");
    expect((await call(plan, "notebook", { path: "a.ipynb" })).isError).toBeFalsy();
    for (const [name, args] of [
      ["notebook_edit", { path: "a.ipynb", action: "delete", index: 1 }],
      ["notebook_run", { path: "a.ipynb" }],
    ] as const) {
      const result = await call(plan, name, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/is not available on the plan surface/);
    }
    expect(readFileSync(path.join(workdir, "a.ipynb"), "utf8")).toBe(THREE);
  });
});

describe("notebook's listing", () => {
  it("is bounded on a notebook of 5,000 cells, says it is not complete, and shows the rest when asked", async () => {
    const cells = Array.from({ length: 5000 }, (_, i) => ({
      kind: "code" as const,
      source: `value_${i} = ${"x".repeat(40)}\nprint(value_${i})\n# more\n# and more`,
      id: `c${String(i).padStart(7, "0")}`,
    }));
    const workdir = await workdirWith({ "big.ipynb": small(cells) });
    const link = await fileRun(workdir);
    const result = await call(link, "notebook", { path: "big.ipynb" });
    const text = textOf(result);
    expect(text.length).toBeLessThan(62_000);
    const shown = (result.structuredContent as { cells: unknown[]; complete: boolean }).cells.length;
    expect(text).toContain(
      `(showing ${shown} of 5000 cells: the answer's budget; call notebook with cells "${shown + 1}-" for the rest)`,
    );
    expect((result.structuredContent as { complete: boolean }).complete).toBe(false);
    const tail = await call(link, "notebook", { path: "big.ipynb", cells: "4999-" });
    expect(textOf(tail)).toContain("[5000] code  id c0004999  not run\n  | value_4999 = ");
    expect((tail.structuredContent as { complete: boolean }).complete).toBe(true);
  });

  it("shows what a hostile file's metadata and outputs say on one line each; an id nbformat refuses is refused", async () => {
    const forged = "\n[9] code  id forged  In [1]";
    const json = {
      cells: [
        {
          cell_type: "code",
          execution_count: 1,
          id: "cccc0001",
          metadata: {},
          outputs: [
            { output_type: "display_data", data: { [`text/x${forged}`]: "v" }, metadata: {} },
            { output_type: "stream", name: `stdout${forged}`, text: "out" },
          ],
          source: ["1"],
        },
      ],
      metadata: { kernelspec: { name: `k${forged}`, language: `python\u001b[2J${forged}` } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    const bad = { ...json, cells: [{ ...json.cells[0], id: `x${forged}` }] };
    const workdir = await workdirWith({ "a.ipynb": JSON.stringify(json), "bad.ipynb": JSON.stringify(bad) });
    const link = await fileRun(workdir);
    const text = textOf(await call(link, "notebook", { path: "a.ipynb" }));
    expect(text.split("\n").filter((l) => l.startsWith("["))).toEqual(["[1] code  id cccc0001  In [1]"]);
    expect(text).not.toContain("\u001b");
    const refused = await call(link, "notebook", { path: "bad.ipynb" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^bad\.ipynb: cell 1 has the id "x\\n\[9\] code .*", which nbformat does not allow/,
    );
  });

  it("keeps a cell's text inside its cell: a source line that looks like a listing is quoted, escapes are not passed on", async () => {
    const workdir = await workdirWith({
      "a.ipynb": small([
        { kind: "code", source: "# [2] markdown  id ffff\n\u001b[2J\u001b[31mred", id: "bbbb0001" },
        { kind: "markdown", source: "plain", id: "bbbb0002" },
      ]),
    });
    const link = await fileRun(workdir);
    const text = textOf(await call(link, "notebook", { path: "a.ipynb" }));
    expect(text.split("\n").filter((l) => l.startsWith("["))).toEqual([
      "[1] code  id bbbb0001  not run",
      "[2] markdown  id bbbb0002",
    ]);
    expect(text).not.toContain("\u001b");
  });
});
