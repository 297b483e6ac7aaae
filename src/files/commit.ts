/**
 * Writes a set of file changes all or nothing: every file is first checked against the content it was planned
 * from, every new content is staged in a temporary file beside its target, and only then are the temporaries
 * renamed into place and the deletions made. A failure while committing restores what was already replaced.
 * apply_patch and lsp_rename commit through here (resolve will too).
 */
import { rename, rm, unlink, writeFile } from "node:fs/promises";
import { errorMessage, ToolError } from "../errors.js";
import { type StagedFile, stageFile } from "./atomic.js";
import type { ConfinedPath } from "./paths.js";
import { isBytes, readRegular } from "./regular.js";
import { shownPath } from "./visible.js";

export interface ChangeSet {
  readonly writes: readonly { readonly target: ConfinedPath; readonly content: string }[];
  readonly deletes: readonly ConfinedPath[];
  /** What each file (by real path) held when the change was planned; undefined = it did not exist. */
  readonly plannedFrom?: ReadonlyMap<string, string | undefined>;
}

/** The first file of a change set that no longer holds what the change was planned from, as answers show it. */
export async function changedSince(changes: ChangeSet): Promise<string | undefined> {
  for (const [real, before] of changes.plannedFrom ?? []) {
    const read = await readRegular(real).catch(() => undefined);
    const now = read && (isBytes(read) ? read.toString("utf8") : read.kind);
    if (now !== before) {
      const target = [...changes.writes.map((w) => w.target), ...changes.deletes].find(
        (t) => t.real === real,
      );
      return target?.shown ?? shownPath(real);
    }
  }
  return undefined;
}

export async function commitChanges(tool: string, changes: ChangeSet): Promise<void> {
  const changed = await changedSince(changes);
  if (changed)
    throw new ToolError(
      `${tool}: ${changed} changed on disk after the change was computed, so none of it was applied. Nothing was changed; try again.`,
    );
  const staged: (StagedFile & { target: ConfinedPath })[] = [];
  const cleanup = async () => {
    for (const s of staged) await rm(s.temp, { force: true });
    for (const s of staged) if (s.createdDir) await rm(s.createdDir, { recursive: true, force: true });
  };
  try {
    for (const w of changes.writes)
      staged.push({ ...(await stageFile(w.target.real, w.content)), target: w.target });
  } catch (error) {
    await cleanup();
    throw new ToolError(
      `${tool} could not write a temporary file (${errorMessage(error)}). Nothing was changed.`,
    );
  }
  // Originals, to put back if a rename or unlink fails halfway.
  const originals = new Map<string, Buffer | undefined>();
  for (const target of [...changes.writes.map((w) => w.target), ...changes.deletes]) {
    const original = await readRegular(target.real).catch(() => undefined);
    originals.set(target.real, original && isBytes(original) ? original : undefined);
  }
  const done: string[] = [];
  try {
    for (const s of staged) {
      await rename(s.temp, s.target.real);
      done.push(s.target.real);
    }
    for (const d of changes.deletes) {
      await unlink(d.real);
      done.push(d.real);
    }
  } catch (error) {
    for (const real of done.reverse()) {
      const original = originals.get(real);
      if (original === undefined) await rm(real, { force: true });
      else await writeFile(real, original);
    }
    await cleanup();
    throw new ToolError(
      `${tool} failed while writing (${errorMessage(error)}); the files already written were restored. Nothing was changed.`,
    );
  }
}
