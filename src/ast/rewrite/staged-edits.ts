/**
 * The rewrites ast_edit staged, by edit_id, until resolve accepts (all files at once, or none) or discards them;
 * and what became of the ones resolved, so a second resolve says so.
 */
import { ToolError } from "../../errors.js";
import { type ChangeSet, changedSince, commitChanges } from "../../files/commit.js";
import { confineHeld } from "../../files/paths.js";
import { plural, sizeText } from "../../files/text.js";
import { quotedValue, shownPath } from "../../files/visible.js";
import type { FileRef } from "../search.js";

export interface StagedFile {
  readonly file: FileRef;
  readonly original: string;
  readonly updated: string;
  readonly replacements: number;
}

interface StagedEdit {
  readonly id: string;
  readonly files: StagedFile[];
  readonly replacements: number;
}

interface ResolveArgs {
  edit_id: string;
  action: "accept" | "discard";
}

const MAX_APPLIED_LISTED = 20;
/** The text a run's staged edits may hold in memory (each file's old and new text) until they are resolved. */
export const STAGED_BYTES = 256 * 1024 * 1024;

const bytesOf = (files: readonly StagedFile[]) =>
  files.reduce((n, f) => n + 2 * (f.original.length + f.updated.length), 0);

export class StagedEdits {
  readonly #staged = new Map<string, StagedEdit>();
  readonly #ended = new Map<string, string>();
  #next = 1;
  #held = 0;

  constructor(
    readonly workdir: string,
    readonly budget = STAGED_BYTES,
  ) {}

  /** Keeps a staged rewrite; returns its edit_id. Refused when the run's staged edits would hold more than the budget. */
  add(files: StagedFile[], replacements: number): string {
    const bytes = bytesOf(files);
    if (this.#held + bytes > this.budget) {
      const pending = [...this.#staged.keys()];
      throw new ToolError(
        `Nothing was staged: this edit's files (${sizeText(bytes)} of old and new text) and the edits staged already (${sizeText(this.#held)}) would be more than the ${sizeText(this.budget)} a run keeps staged. ${pending.length ? `Resolve (accept or discard) ${pending.join(", ")} first, or` : "Rewrite in parts:"} narrow \`path\` or the pattern.`,
      );
    }
    const id = `edit_${this.#next++}`;
    this.#staged.set(id, { id, files, replacements });
    this.#held += bytes;
    return id;
  }

  /** What resolve would refuse, nothing changed: an unknown or ended edit_id, or (to accept) a file changed since. */
  async check(args: ResolveArgs): Promise<void> {
    const edit = this.#find(args.edit_id);
    if (args.action !== "accept") return;
    const changed = await changedSince(await this.#changes(edit));
    if (changed)
      throw new ToolError(
        `${changed} changed on disk after ${edit.id} was staged, so accepting it would undo that change. Nothing was changed: run ast_edit again to stage a fresh edit, or discard ${edit.id}.`,
      );
  }

  async resolve(args: ResolveArgs) {
    const edit = this.#find(args.edit_id);
    this.#staged.delete(edit.id);
    this.#held -= bytesOf(edit.files);
    const summary = `${plural(edit.replacements, "replacement")} in ${plural(edit.files.length, "file")}`;
    if (args.action === "discard") {
      this.#ended.set(edit.id, "discarded");
      return {
        text: `Discarded ${edit.id} (${summary}); nothing was written.`,
        structured: { edit_id: edit.id, action: "discard" as const, files: [] },
        written: [],
      };
    }
    try {
      await commitChanges("resolve", await this.#changes(edit));
    } catch (error) {
      this.#ended.set(edit.id, "rejected");
      if (error instanceof ToolError)
        throw new ToolError(
          `${error.message} ${edit.id} is dropped: run ast_edit again to stage a fresh one.`,
        );
      throw error;
    }
    this.#ended.set(edit.id, "accepted");
    // The files are listed up to a point: the structured result has them all.
    const rows = edit.files
      .slice(0, MAX_APPLIED_LISTED)
      .map((f) => `  ${shownPath(f.file.rel)} (${plural(f.replacements, "replacement")})`);
    const more = edit.files.length - rows.length;
    if (more > 0)
      rows.push(`  … and ${plural(more, "more file")} (showing ${rows.length} of ${edit.files.length})`);
    return {
      text: `Applied ${edit.id}: ${summary}.\n${rows.join("\n")}`,
      structured: {
        edit_id: edit.id,
        action: "accept" as const,
        files: edit.files.map((f) => ({ path: f.file.rel, replacements: f.replacements })),
      },
      written: edit.files.map((f) => f.file.rel),
    };
  }

  clear(): void {
    this.#staged.clear();
    this.#held = 0;
  }

  #find(id: string): StagedEdit {
    const edit = this.#staged.get(id);
    if (edit) return edit;
    const ended = this.#ended.get(id);
    if (ended) throw new ToolError(`${id} was already ${ended}; there is nothing left to resolve.`);
    const pending = [...this.#staged.keys()];
    throw new ToolError(
      `There is no staged edit ${quotedValue(id)}. Staged now: ${pending.length ? pending.join(", ") : "none (ast_edit stages one)"}.`,
    );
  }

  async #changes(edit: StagedEdit): Promise<ChangeSet> {
    const targets = await Promise.all(
      edit.files.map(async (f) => ({ f, target: await confineHeld(this.workdir, f.file.rel) })),
    );
    return {
      writes: targets.map(({ f, target }) => ({ target, content: f.updated })),
      deletes: [],
      plannedFrom: new Map(targets.map(({ f, target }) => [target.real, f.original])),
    };
  }
}
