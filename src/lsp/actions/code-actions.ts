/**
 * code_actions: what the server offers on a target's line, for the diagnostics on that line — fixes first, and the
 * kinds that only open a page for a person left out and counted.
 */
import type { CodeAction, Command } from "vscode-languageserver-protocol";
import { plural } from "../../files/text.js";
import { diagnosticsOf } from "../diagnostics/diagnostics.js";
import type { LspAnswer } from "../schema.js";
import { fileUri, type LspBase, type Target } from "../target.js";

export async function codeActions(
  base: LspBase,
  t: Target,
  note: string,
  signal: AbortSignal,
): Promise<LspAnswer> {
  const found = await diagnosticsOf(
    t.client,
    t.file,
    t.languageId,
    base.supervisor.timeouts.diagnosticsMs,
    signal,
  );
  // Only the diagnostics on that line go to the server: fixes for the whole file are not what was asked.
  const onLine = found.items.filter(
    (d) => d.range.start.line <= t.position.line && d.range.end.line >= t.position.line,
  );
  const range = {
    start: { line: t.position.line, character: 0 },
    end: { line: t.position.line + 1, character: 0 },
  };
  const result = await t.client.request<(CodeAction | Command)[] | null>(
    "textDocument/codeAction",
    { textDocument: { uri: fileUri(t.file) }, range, context: { diagnostics: onLine, triggerKind: 1 } },
    base.supervisor.timeouts.requestMs,
    signal,
  );
  const browse = new Set(t.client.spec.browseActionKinds ?? []);
  const all = (result ?? []).map((a) => ({
    title: a.title,
    ...("kind" in a && a.kind ? { kind: a.kind } : {}),
    ...("isPreferred" in a && a.isPreferred ? { preferred: true } : {}),
  }));
  // Fixes first (preferred, then quick fixes), then refactorings, then the rest; the server's order within each.
  const rank = (a: { kind?: string; preferred?: boolean }) =>
    a.preferred ? 0 : a.kind?.startsWith("quickfix") ? 1 : a.kind?.startsWith("refactor") ? 2 : 3;
  const actions = all
    .filter((a) => !(a.kind && browse.has(a.kind)))
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i)
    .map(({ a }) => a);
  const left = all.length - actions.length;
  const header = `${note ? `${note}\n` : ""}${plural(actions.length, "code action")} (${plural(onLine.length, "diagnostic")} on that line sent${left ? `; ${left} that only open a page for a person left out` : ""})`;
  const rows = actions.map(
    (a) => `- ${a.title}${a.kind ? ` [${a.kind}]` : ""}${a.preferred ? " (preferred)" : ""}`,
  );
  return {
    text: actions.length ? `${header}:\n${rows.join("\n")}` : `${header}.`,
    structured: { action: "code_actions", server: t.client.spec.id, target: t.target, actions },
  };
}
