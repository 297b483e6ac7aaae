/** lsp_rename: the server's prepareRename and rename, the new name checked first, the edit applied all or nothing. */
import type { WorkspaceEdit } from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { plural } from "../../files/text.js";
import { shownPath } from "../../files/visible.js";
import type { RenameAnswer } from "../schema.js";
import { reportedBefore } from "../server/request-errors.js";
import { fileUri, type LspBase, requireCapability, type Target } from "../target.js";
import { checkNewName } from "./rename-check.js";
import { applyWorkspaceEdit } from "./workspace-edit.js";

/** prepareRename, rename, then the WorkspaceEdit applied all or nothing. */
export async function rename(
  base: LspBase,
  t: Target,
  newName: string,
  signal: AbortSignal,
): Promise<RenameAnswer> {
  requireCapability(t.client, "rename");
  checkNewName(newName, t.languageId, t.target.identifier);
  const textDocument = { uri: fileUri(t.file) };
  const timeout = base.supervisor.timeouts.requestMs;
  const server = t.client.spec.name;
  const where = `\`${t.target.identifier}\` at ${shownPath(t.target.path)}:${t.target.line}`;
  const refused = (what: string) => (error: Error) => {
    if (error instanceof ToolError || error.name === "TimeoutError") throw error;
    throw new ToolError(
      `${server} ${what}: ${error.message}.${reportedBefore(error, base.workdir)} Nothing was changed.`,
    );
  };
  const provider = t.client.capabilities.renameProvider;
  if (typeof provider === "object" && provider.prepareProvider) {
    const prepared = await t.client
      .request<unknown>("textDocument/prepareRename", { textDocument, position: t.position }, timeout, signal)
      .catch(refused(`refuses to rename ${where}`));
    if (!prepared) {
      throw new ToolError(
        `${server} says ${where} cannot be renamed (a keyword, a built-in, or defined outside the project?). Nothing was changed.`,
      );
    }
  }
  const edit = await t.client
    .request<WorkspaceEdit | null>(
      "textDocument/rename",
      { textDocument, position: t.position, newName },
      timeout,
      signal,
    )
    .catch(refused(`could not rename ${where} to \`${newName}\``));
  if (!edit || (!edit.changes && !edit.documentChanges))
    throw new ToolError(`${server} returned no edit for renaming ${where}. Nothing was changed.`);
  const applied = await applyWorkspaceEdit(
    "lsp_rename",
    edit,
    base.workdir,
    t.client.encoding,
    t.client.documents,
  );
  const edits = applied.files.reduce((n, f) => n + f.edits, 0);
  const rows = [
    ...applied.files.map((f) => `  ${shownPath(f.path)} (${plural(f.edits, "edit")})`),
    ...applied.renamed.map((r) => `  renamed ${r.from} → ${r.to}`),
    ...applied.created.map((c) => `  created ${c}`),
    ...applied.deleted.map((d) => `  deleted ${d}`),
  ];
  const { written, ...changes } = applied;
  return {
    text: `Renamed \`${t.target.identifier}\` to \`${newName}\`${t.target.note ? ` (${t.target.note})` : ""}: ${plural(edits, "edit")} in ${plural(applied.files.length, "file")}.\n${rows.join("\n")}`,
    structured: { old_name: t.target.identifier, new_name: newName, ...changes },
    written,
  };
}
