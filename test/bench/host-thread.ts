/**
 * The host's event loop under calls that carry a lot (issue 41: nothing a call carries holds the host's thread):
 * the longest gap between 1 ms ticks while the call runs, beside the same gap for a baseline doing the least the
 * same work needs.
 * - lsp_rename of a name with 50,000 uses in one 0.6 MB file (tsgo), against the raw rename request on the same
 *   server whose edits are applied by one join — the edits were spliced into the whole text one by one: 20,000 held
 *   the thread 2.8 s, 50,000 over two minutes;
 * - ast_grep with an 8 MB `regex` rule (refused by its size now), against a call with a one-word regex — ast-grep
 *   compiled it on the host's thread where the rule was checked: 1 s and ~900 MB a call.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { TextEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import { createRun } from "../../src/index.js";
import type { BenchRow } from "./lsp.js";

/** The longest gap between 1 ms ticks of the event loop while `work` runs. */
export async function longestGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let gap = 0;
  const ticks = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(ticks);
  }
  return Math.max(gap, performance.now() - last);
}

const USES = 50_000;

async function benchRename(): Promise<BenchRow> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-bench-rename-"));
  const lines = ["export let value = 0;", ...Array.from({ length: USES }, (_, i) => `value += ${i % 10};`)];
  const source = `${lines.join("\n")}\n`;
  await writeFile(path.join(dir, "package.json"), "{}");
  await writeFile(path.join(dir, "tsconfig.json"), "{}");
  await writeFile(path.join(dir, "a.ts"), source);
  const run = await createRun({ workdir: dir, approver: "always", kernels: false });
  try {
    const client = await run.link({ surface: "full" });
    await client.callTool({
      name: "lsp",
      arguments: { action: "hover", file: "a.ts", line: 1, symbol: "value" },
    });
    const ours = await longestGap(() =>
      client.callTool({
        name: "lsp_rename",
        arguments: { file: "a.ts", line: 1, symbol: "value", new_name: "total" },
      }),
    );
    const renamed = await readFile(path.join(dir, "a.ts"), "utf8");
    if (renamed !== source.replaceAll("value", "total"))
      throw new Error("rename bench: the file was not renamed");
    // The baseline: the same server's raw rename of the new name back, its edits applied by one join.
    const file = path.join(dir, "a.ts");
    const { client: server } = await run.resource("lsp")!.supervisor.clientFor(file, "a.ts");
    const base = await longestGap(async () => {
      const edit = await server.request<WorkspaceEdit>(
        "textDocument/rename",
        {
          textDocument: { uri: pathToFileURL(file).href },
          position: { line: 0, character: 11 },
          newName: "value",
        },
        120_000,
      );
      const edits = [...Object.values(edit.changes ?? {}).flat(), ...documentEdits(edit)];
      await writeFile(file, joinOnce(renamed, edits));
    });
    return {
      name: `rename, ${USES.toLocaleString("en-US")} edits: longest gap`,
      ours,
      base,
      baseline: "raw rename request, edits joined once (tsgo)",
    };
  } finally {
    await run.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

function documentEdits(edit: WorkspaceEdit): TextEdit[] {
  return (edit.documentChanges ?? []).flatMap((change) =>
    "edits" in change ? change.edits.filter((e): e is TextEdit => "newText" in e) : [],
  );
}

/** ASCII lines, UTF-16 columns: the least a harness applying the edits would do. */
function joinOnce(text: string, edits: readonly TextEdit[]): string {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  const spans = edits
    .map((e) => ({
      from: starts[e.range.start.line]! + e.range.start.character,
      to: starts[e.range.end.line]! + e.range.end.character,
      text: e.newText,
    }))
    .sort((a, b) => a.from - b.from);
  const pieces: string[] = [];
  let kept = 0;
  for (const span of spans) {
    pieces.push(text.slice(kept, span.from), span.text);
    kept = span.to;
  }
  pieces.push(text.slice(kept));
  return pieces.join("");
}

async function benchRegexRule(): Promise<BenchRow> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-bench-regex-"));
  await writeFile(path.join(dir, "a.js"), "const greet = (name) => name;\n");
  const run = await createRun({ workdir: dir, lsp: false, kernels: false });
  try {
    const client = await run.link({ surface: "plan" });
    const grep = (regex: string) =>
      client.callTool({
        name: "ast_grep",
        arguments: { language: "javascript", rule: { kind: "identifier", regex } },
      });
    await grep("^greet$");
    const ours = await longestGap(() => grep("a".repeat(8_000_000)));
    const base = await longestGap(() => grep("^greet$"));
    return { name: "ast_grep, 8 MB regex rule: longest gap", ours, base, baseline: "a one-word regex rule" };
  } finally {
    await run.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchHostThread(): Promise<BenchRow[]> {
  return [await benchRename(), await benchRegexRule()];
}
