/**
 * `npm run bench -- answers`: the bytes of what the model reads. A fixed set of queries on a generated project
 * (test/answer-project.ts) and on examples/workspace, each answer's size beside a minimal rendering of the same
 * results — each location as `path:line` and its snippet, a hover's text, a symbol's line and name, a match's code,
 * a stop's line and locals — so that every change to an answer shows its cost.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileLines } from "../../src/files/lines.js";
import { snippetOf } from "../../src/files/snippet.js";
import { createRun } from "../../src/index.js";
import type { RunLink } from "../../src/run-link.js";
import { answerProject } from "../answer-project.js";
import type { BenchRow } from "./lsp.js";

type Args = Record<string, unknown>;
type Structured = Record<string, unknown>;

interface Query {
  readonly label: string;
  readonly tool: string;
  readonly args: Args;
  /** Calls made first whose answers are not counted (a breakpoint before the launch that stops). */
  readonly before?: readonly [string, Args][];
}

const lsp = (action: string, file: string, line: number, symbol: string): Args => ({
  action,
  file,
  line,
  symbol,
});

const GENERATED: Query[] = [
  { label: "definition py", tool: "lsp", args: lsp("definition", "py/shop/use0.py", 5, "merge_cookies") },
  { label: "definition ts", tool: "lsp", args: lsp("definition", "ts/src/use0.ts", 4, "mergeCookies") },
  {
    label: "references py fn",
    tool: "lsp",
    args: lsp("references", "py/shop/cookies.py", 8, "merge_cookies"),
  },
  { label: "references py class", tool: "lsp", args: lsp("references", "py/shop/cookies.py", 1, "Jar") },
  {
    label: "references ts fn",
    tool: "lsp",
    args: lsp("references", "ts/src/cookies.ts", 11, "mergeCookies"),
  },
  { label: "references ts class", tool: "lsp", args: lsp("references", "ts/src/cookies.ts", 1, "Jar") },
  { label: "hover py", tool: "lsp", args: lsp("hover", "py/shop/use0.py", 5, "merge_cookies") },
  { label: "hover py long", tool: "lsp", args: lsp("hover", "py/shop/use0.py", 7, "long_doc") },
  { label: "hover ts", tool: "lsp", args: lsp("hover", "ts/src/use0.ts", 4, "mergeCookies") },
  { label: "symbols py", tool: "lsp", args: { action: "symbols", file: "py/shop/cookies.py" } },
  { label: "symbols ts", tool: "lsp", args: { action: "symbols", file: "ts/src/cookies.ts" } },
  {
    label: "call_hierarchy py",
    tool: "lsp",
    args: lsp("call_hierarchy", "py/shop/cookies.py", 8, "merge_cookies"),
  },
  {
    label: "call_hierarchy ts",
    tool: "lsp",
    args: lsp("call_hierarchy", "ts/src/cookies.ts", 11, "mergeCookies"),
  },
  { label: "ast_grep py", tool: "ast_grep", args: { pattern: "merge_cookies($$$A)", language: "python" } },
  { label: "ast_grep ts", tool: "ast_grep", args: { pattern: "mergeCookies($$$A)", language: "typescript" } },
  {
    label: "debug stop py",
    tool: "debug",
    args: { operation: "step_over" },
    before: [
      ["debug", { operation: "breakpoints", file: "py/tally.py", lines: [4] }],
      ["debug", { operation: "launch", program: "py/tally.py" }],
    ],
  },
];

const SAMPLE: Query[] = [
  { label: "definition ts (sample)", tool: "lsp", args: lsp("definition", "ts/src/main.ts", 4, "stock.add") },
  { label: "references ts (sample)", tool: "lsp", args: lsp("references", "ts/src/stock.ts", 7, "Stock") },
  { label: "hover py (sample)", tool: "lsp", args: lsp("hover", "python/inventory/stock.py", 31, "Stock") },
  { label: "definition go (sample)", tool: "lsp", args: lsp("definition", "go/main.go", 7, "stock.Add") },
  { label: "references go (sample)", tool: "lsp", args: lsp("references", "go/stock.go", 11, "Stock") },
];

/** The minimal rendering of an answer's results, from its structured content. */
function minimal(tool: string, s: Structured, workdir: string): string {
  const rows: string[] = [];
  const locations = s.locations as { path: string; line: number; snippet: string }[] | undefined;
  if (locations) for (const l of locations) rows.push(`${l.path}:${l.line}  ${l.snippet}`);
  if (typeof s.hover === "string") rows.push(s.hover);
  const symbols = s.symbols as { path?: string; line: number; name: string }[] | undefined;
  if (symbols) for (const y of symbols) rows.push(`${y.path ? `${y.path}:` : ""}${y.line}  ${y.name}`);
  const tree = s.hierarchy as { path: string; line: number; name: string; sites?: number[] }[] | undefined;
  if (tree) {
    for (const item of tree) {
      rows.push(`${item.path}:${item.line}  ${item.name}`);
      const lines = fileLines(path.join(workdir, item.path)) ?? [];
      for (const site of new Set(item.sites ?? []))
        rows.push(`${item.path}:${site}  ${snippetOf(lines, site - 1)}`);
    }
  }
  if (tool === "ast_grep")
    for (const m of s.matches as { path: string; line: number; text: string }[])
      rows.push(`${m.path}:${m.line}  ${m.text}`);
  if (tool === "debug") {
    const at = s.location as { path: string; line: number } | undefined;
    if (at) {
      const lines = fileLines(path.join(workdir, at.path)) ?? [];
      rows.push(`${at.path}:${at.line}  ${snippetOf(lines, at.line - 1)}`);
    }
    const locals = s.locals as { name: string; value: string }[] | undefined;
    if (locals) rows.push(locals.map((v) => `${v.name} = ${v.value}`).join("; "));
  }
  return rows.join("\n");
}

interface Measured {
  label: string;
  ours: number;
  minimal: number;
}

async function measure(client: RunLink, workdir: string, queries: readonly Query[]): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const q of queries) {
    for (const [tool, args] of q.before ?? []) await client.callTool({ name: tool, arguments: args });
    const result = await client.callTool({ name: q.tool, arguments: q.args });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
    if (result.isError) throw new Error(`${q.label} failed: ${text.slice(0, 300)}`);
    const floor = minimal(q.tool, (result.structuredContent ?? {}) as Structured, workdir);
    out.push({ label: q.label, ours: Buffer.byteLength(text), minimal: Buffer.byteLength(floor) });
  }
  return out;
}

async function inRun<T>(workdir: string, work: (client: RunLink) => Promise<T>): Promise<T> {
  const run = await createRun({ workdir, conversationId: "bench-answers", approver: "always" });
  try {
    return await work(await run.link({ surface: "full" }));
  } finally {
    await run.dispose();
  }
}

export async function benchAnswers(): Promise<BenchRow[]> {
  const generated = await answerProject();
  const sample = await mkdtemp(path.join(tmpdir(), "runbound-bench-answers-"));
  try {
    await cp(path.resolve(import.meta.dirname, "../../examples/workspace"), sample, { recursive: true });
    const rows = [
      ...(await inRun(generated, (c) => measure(c, generated, GENERATED))),
      ...(await inRun(sample, (c) => measure(c, sample, SAMPLE))),
    ];
    console.log(`\n${"answer".padEnd(28)} ${"runbound".padStart(9)} ${"minimal".padStart(9)}  ratio`);
    for (const r of rows)
      console.log(
        `${r.label.padEnd(28)} ${`${r.ours} B`.padStart(9)} ${`${r.minimal} B`.padStart(9)}  ${(r.ours / r.minimal).toFixed(2)}×`,
      );
    const ours = rows.reduce((n, r) => n + r.ours, 0);
    const floor = rows.reduce((n, r) => n + r.minimal, 0);
    console.log(
      `${"total".padEnd(28)} ${`${ours} B`.padStart(9)} ${`${floor} B`.padStart(9)}  ${(ours / floor).toFixed(2)}×`,
    );
    return [];
  } finally {
    await rm(generated, { recursive: true, force: true });
    await rm(sample, { recursive: true, force: true });
  }
}
