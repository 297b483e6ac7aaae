/**
 * What lsp_rename can tell without a server, so that a call it would refuse is refused before anyone is asked to
 * approve it: the file, the symbol on its line, the new name; or, for a move, the two paths.
 */
import { existsSync, statSync } from "node:fs";
import { ToolError } from "../../errors.js";
import { type ConfinedPath, confine, confineExisting } from "../../files/paths.js";
import { visibleLine } from "../../files/visible.js";
import { familyOf, locateSymbol } from "../actions/positions.js";
import { languageOf } from "../catalog.js";
import { type LspBase, targetFile } from "../target.js";
import { identifierProblem } from "./identifiers.js";

export interface RenameArgs {
  readonly file: string;
  readonly line?: number | undefined;
  readonly symbol?: string | undefined;
  readonly new_name?: string | undefined;
  readonly new_path?: string | undefined;
}

export async function checkRename(base: LspBase, args: RenameArgs): Promise<void> {
  if (args.new_path !== undefined) {
    await movePaths(base.workdir, args.file, args.new_path);
    return;
  }
  const { confined, text } = await targetFile(base.workdir, args.file);
  const spec = base.supervisor.specFor(confined.real);
  // No server for the file: the call says so itself (naming the ones there are).
  if (!spec || args.symbol === undefined || args.new_name === undefined) return;
  const languageId = languageOf(spec, confined.real)!;
  const located = locateSymbol(text, args.line, args.symbol, familyOf(languageId));
  checkNewName(args.new_name, languageId, located.identifier);
}

/** A new name the language takes as an identifier, other than the current one. */
export function checkNewName(newName: string, languageId: string, current: string): void {
  const problem = identifierProblem(newName, languageId);
  if (problem) {
    // Quoted as the model can read it back: clipped, and nothing invisible left invisible.
    const shown = newName.length > 60 ? `${newName.slice(0, 60)}…` : newName;
    throw new ToolError(`\`new_name\` "${visibleLine(shown)}" ${problem}; nothing was changed.`);
  }
  if (newName === current)
    throw new ToolError(`\`new_name\` is the current name \`${newName}\`; nothing to rename.`);
}

/** A move's source (an existing file) and destination (free, elsewhere), both inside the workdir. */
export async function movePaths(
  workdir: string,
  file: string,
  newPath: string,
): Promise<{ from: ConfinedPath; to: ConfinedPath }> {
  const from = await confineExisting(workdir, file, "file");
  if (!statSync(from.real).isFile())
    throw new ToolError(
      `\`file\` ${from.shown} is a folder; lsp_rename moves one file at a time. Nothing was moved.`,
    );
  const to = await confine(workdir, newPath, "new_path");
  if (to.real === from.real)
    throw new ToolError(`\`new_path\` is where ${from.shown} already is; nothing to move.`);
  if (existsSync(to.real))
    throw new ToolError(`\`new_path\` ${to.shown} exists; lsp_rename does not overwrite. Nothing was moved.`);
  return { from, to };
}
