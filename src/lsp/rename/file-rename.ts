/**
 * lsp_rename with `new_path`: a file moved with the edits its servers propose for it (`workspace/willRenameFiles`:
 * imports, module declarations), applied with the move all or nothing, then `workspace/didRenameFiles`. A server
 * that proposes nothing, or cannot, is named — a move never reads as "imports updated" when they were not.
 */
import { pathToFileURL } from "node:url";
import type {
  FileOperationRegistrationOptions,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { plural } from "../../files/text.js";
import { shownPath, visibleLine } from "../../files/visible.js";
import type { RenameAnswer } from "../schema.js";
import type { LspClient, OpenDocument } from "../server/client.js";
import { globMatcher } from "../server/glob.js";
import { reportedBefore } from "../server/request-errors.js";
import { type LspBase, warmedUp } from "../target.js";
import { movePaths } from "./rename-check.js";
import { applyWorkspaceEdit } from "./workspace-edit.js";

interface Proposal {
  readonly client: LspClient;
  /** undefined: the server does not offer edits for this file's move (no willRename filter matches it). */
  readonly edit?: WorkspaceEdit | null;
}

/** Moves `file` to `newPath` with every willRenameFiles edit the servers propose, or changes nothing. */
export async function renameFile(
  base: LspBase,
  file: string,
  newPath: string,
  signal: AbortSignal,
): Promise<RenameAnswer> {
  const { from, to } = await movePaths(base.workdir, file, newPath);
  const files = [{ oldUri: pathToFileURL(from.real).href, newUri: pathToFileURL(to.real).href }];
  const clients = await serversFor(base, from);
  const proposals = await Promise.all(
    clients.map(async (client): Promise<Proposal> => {
      if (!offers(client, "willRename", from.real)) return { client };
      const edit = await client
        .request<WorkspaceEdit | null>(
          "workspace/willRenameFiles",
          { files },
          base.supervisor.timeouts.requestMs,
          signal,
        )
        .catch((error: Error) => {
          if (error.name === "TimeoutError") throw error;
          throw new ToolError(
            `${client.spec.name} could not propose the edits for moving ${from.shown}: ${visibleLine(error.message.slice(0, 300))}.${reportedBefore(error, base.workdir)} Nothing was moved.`,
          );
        });
      return { client, edit };
    }),
  );
  const documents = new Map<string, OpenDocument>();
  for (const c of clients) for (const [uri, doc] of c.documents) documents.set(uri, doc);
  const applied = await applyWorkspaceEdit(
    "lsp_rename",
    combined(proposals, files[0]!),
    base.workdir,
    "utf-16",
    documents,
  );
  for (const { client } of proposals)
    if (offers(client, "didRename", from.real))
      await client.notify("workspace/didRenameFiles", { files }).catch(() => undefined);
  const { written, ...changes } = applied;
  const edits = changes.files.reduce((n, f) => n + f.edits, 0);
  return {
    text: [
      `Moved ${from.shown} → ${to.shown}; ${proposals.map((p) => said(p, from.shown)).join("; ") || "no language server serves it, so no imports were updated"}.`,
      ...(edits ? fileRows(changes.files, from.rel, to.rel) : []),
    ].join("\n"),
    structured: {
      moved: { from: from.rel, to: to.rel },
      servers: proposals.map((p) => ({ server: p.client.spec.id, edits: editCount(p.edit) })),
      ...changes,
    },
    // The old path too: its servers forget it (diagnostics on write close a file that is gone).
    written: [...new Set([...written, from.rel, to.rel])],
  };
}

/** Files listed in a move's answer, at most (the structured result has them all). */
const MAX_LISTED = 50;

/** The edited files, an edit to the moved file counted where it now is; a few, and how many more. */
function fileRows(files: readonly { path: string; edits: number }[], from: string, to: string): string[] {
  const rows = files
    .map((f) => ({ ...f, path: f.path === from ? to : f.path }))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `  ${shownPath(f.path)} (${plural(f.edits, "edit")})`);
  if (rows.length <= MAX_LISTED) return rows;
  return [
    ...rows.slice(0, MAX_LISTED),
    `  … and ${plural(rows.length - MAX_LISTED, "more file")} (showing ${MAX_LISTED} of ${rows.length})`,
  ];
}

/** The file's own server (started if need be) and every other running server whose root holds the file. */
async function serversFor(base: LspBase, from: { real: string; rel: string }): Promise<LspClient[]> {
  const found = await base.supervisor.clientFor(from.real, from.rel).catch(() => undefined);
  const own = found?.client;
  if (found) {
    // Its server must know the project before it can say what refers to the file (rust-analyzer just started: null).
    await warmedUp(base, found.client, await found.client.sync(from.real, found.languageId));
    if (found.client.progressTitles.length) await found.client.settled(base.supervisor.timeouts.requestMs, 0);
  }
  const running = (await base.supervisor.liveClients()).filter((c) => from.real.startsWith(`${c.root}/`));
  return [...new Set([...(own ? [own] : []), ...running])];
}

/** Whether a server registered a file operation (willRename, didRename) whose filters match this file. */
function offers(client: LspClient, operation: "willRename" | "didRename", file: string): boolean {
  const options: FileOperationRegistrationOptions | undefined =
    client.capabilities.workspace?.fileOperations?.[operation];
  return options?.filters.some((filter) => matches(filter, file)) ?? false;
}

function matches(filter: FileOperationRegistrationOptions["filters"][number], file: string): boolean {
  if (filter.scheme && filter.scheme !== "file") return false;
  if (filter.pattern.matches === "folder") return false;
  const test = globMatcher(filter.pattern.glob, { ignoreCase: filter.pattern.options?.ignoreCase ?? false });
  return test(file) || test(file.replace(/^\//, ""));
}

/**
 * Every server's edits and the move as one edit: text edits per file merged (each server computed its own against
 * the files as they are), those to the old path before the move, any to the new path after it.
 */
function combined(proposals: readonly Proposal[], move: { oldUri: string; newUri: string }): WorkspaceEdit {
  const byUri = new Map<string, TextEdit[]>();
  for (const { client, edit } of proposals) {
    if (!edit) continue;
    const operations = edit.documentChanges ?? [];
    for (const op of operations) {
      if (!("textDocument" in op))
        throw new ToolError(
          `${client.spec.name} proposed a ${op.kind} of a file for this move, which runbound does not apply on a move; nothing was moved.`,
        );
    }
    const entries: [string, TextEdit[]][] = [
      ...Object.entries(edit.changes ?? {}),
      ...(operations as TextDocumentEdit[]).map((op): [string, TextEdit[]] => [
        op.textDocument.uri,
        op.edits as TextEdit[],
      ]),
    ];
    for (const [uri, edits] of entries) byUri.set(uri, [...(byUri.get(uri) ?? []), ...edits]);
  }
  const change = (uri: string): TextDocumentEdit => ({
    textDocument: { uri, version: null },
    edits: byUri.get(uri) ?? [],
  });
  const before = [...byUri.keys()].filter((uri) => uri !== move.newUri).map(change);
  const after = byUri.has(move.newUri) ? [change(move.newUri)] : [];
  return { documentChanges: [...before, { kind: "rename", ...move }, ...after] };
}

function editCount(edit: WorkspaceEdit | null | undefined): number {
  if (!edit) return 0;
  const changes = Object.values(edit.changes ?? {}).reduce((n, e) => n + e.length, 0);
  const documents = (edit.documentChanges ?? []).reduce(
    (n, op) => n + ("textDocument" in op ? op.edits.length : 0),
    0,
  );
  return changes + documents;
}

/** What one server did for the move, in a few words. */
function said(p: Proposal, shown: string): string {
  const name = p.client.spec.id;
  if (p.edit === undefined)
    return `${name} does not update imports on a move (it offers no willRenameFiles edits for ${shown}): check what imported it (\`lsp diagnostics\` with file "*" lists imports that broke)`;
  const n = editCount(p.edit);
  return n ? `${name} updated what refers to it: ${plural(n, "edit")}` : `${name} proposed no import edits`;
}
