/**
 * Applies a server's WorkspaceEdit (`changes`, or `documentChanges` with text edits and create/rename/delete) all
 * or nothing. Every file must lie inside the workdir; a text edit for a version other than the one the server was
 * sent, or a file that changed on disk since it was read, refuses the whole edit. The commit itself is
 * files/commit.ts: staged, renamed into place, restored on a failure halfway.
 */
import { fileURLToPath } from "node:url";
import type {
  CreateFile,
  DeleteFile,
  RenameFile,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from "vscode-languageserver-protocol";

/**
 * A document's edits as plain text edits. LSP 3.18's snippet edits (tab stops, placeholders) are sent only to
 * clients that announce `snippetEditSupport`, which runbound does not: one would be a server's fault.
 */
function plainEdits(op: TextDocumentEdit, rel: string, tool: string): TextEdit[] {
  return op.edits.map((edit) => {
    if ("newText" in edit) return edit;
    throw new ToolError(
      `${tool}: the server sent a snippet edit for ${shownPath(rel)}, which runbound does not ask for and cannot apply as text; nothing was changed.`,
    );
  });
}

import { ToolError } from "../../errors.js";
import { commitChanges } from "../../files/commit.js";
import { type ConfinedPath, confineHeld } from "../../files/paths.js";
import { readRegular, regularBytes } from "../../files/regular.js";
import { firstNonUtf8Line, notUtf8Message } from "../../files/utf8.js";
import { shownPath } from "../../files/visible.js";
import type { OpenDocument } from "../server/client.js";

export interface AppliedEdit {
  files: { path: string; edits: number }[];
  created: string[];
  renamed: { from: string; to: string }[];
  deleted: string[];
  /** Every path touched, for the after-write hooks. */
  written: string[];
}

interface FileState {
  readonly target: ConfinedPath;
  readonly original: string | undefined;
  content: string | undefined;
  edits: number;
}

export async function applyWorkspaceEdit(
  tool: string,
  edit: WorkspaceEdit,
  workdir: string,
  encoding: string,
  openDocuments: ReadonlyMap<string, OpenDocument>,
): Promise<AppliedEdit> {
  const plan = new PlannedEdit(tool, workdir, encoding, openDocuments);
  const operations: (TextDocumentEdit | CreateFile | RenameFile | DeleteFile)[] = edit.documentChanges
    ? [...edit.documentChanges]
    : Object.entries(edit.changes ?? {}).map(([uri, edits]) => ({
        textDocument: { uri, version: null },
        edits,
      }));
  for (const op of operations) {
    if ("textDocument" in op) await plan.change(op);
    else if (op.kind === "create") await plan.create(op);
    else if (op.kind === "rename") await plan.rename(op);
    else await plan.delete(op);
  }
  return plan.commit();
}

/** A workspace edit planned in memory, file by file, and committed all or nothing. */
class PlannedEdit {
  readonly #files = new Map<string, FileState>();
  readonly #result: AppliedEdit = { files: [], created: [], renamed: [], deleted: [], written: [] };

  constructor(
    readonly tool: string,
    readonly workdir: string,
    readonly encoding: string,
    readonly openDocuments: ReadonlyMap<string, OpenDocument>,
  ) {}

  async #load(uri: string): Promise<FileState> {
    const file = uri.startsWith("file:") ? fileURLToPath(uri) : uri;
    const target = await confineHeld(this.workdir, file, "the edit's file").catch(() => {
      throw new ToolError(
        `${this.tool}: the server's edit would change ${shownPath(file)}, which is outside the workdir; nothing was changed.`,
      );
    });
    let state = this.#files.get(target.real);
    if (!state) {
      const read = await readRegular(target.real).catch(() => undefined);
      const bytes = read && regularBytes(read, target.shown, this.tool);
      const nonUtf8 = bytes && firstNonUtf8Line(bytes);
      if (nonUtf8 !== undefined)
        throw new ToolError(`${this.tool}: ${notUtf8Message(target.shown, nonUtf8)}`);
      const original = bytes?.toString("utf8");
      state = { target, original, content: original, edits: 0 };
      this.#files.set(target.real, state);
    }
    return state;
  }

  #refuse(what: string): never {
    throw new ToolError(`${this.tool}: ${what}; nothing was changed.`);
  }

  async change(op: TextDocumentEdit): Promise<void> {
    const state = await this.#load(op.textDocument.uri);
    if (state.content === undefined)
      this.#refuse(`the edit changes ${state.target.shown}, which does not exist`);
    const open = this.openDocuments.get(op.textDocument.uri);
    if (
      open &&
      (open.text !== state.original ||
        (op.textDocument.version != null && op.textDocument.version !== open.version))
    ) {
      throw new ToolError(
        `${this.tool}: ${state.target.shown} changed since the server read it; nothing was changed. Try again.`,
      );
    }
    const edits = plainEdits(op, state.target.rel, this.tool);
    state.content = applyTextEdits(state.target.rel, state.content, edits, this.encoding, this.tool);
    state.edits += op.edits.length;
  }

  async create(op: CreateFile): Promise<void> {
    const state = await this.#load(op.uri);
    if (state.content !== undefined && !op.options?.overwrite) {
      if (op.options?.ignoreIfExists) return;
      this.#refuse(`the edit creates ${state.target.shown}, which already exists`);
    }
    state.content = "";
    this.#result.created.push(state.target.rel);
  }

  async rename(op: RenameFile): Promise<void> {
    const from = await this.#load(op.oldUri);
    const to = await this.#load(op.newUri);
    if (from.content === undefined)
      this.#refuse(`the edit renames ${from.target.shown}, which does not exist`);
    if (to.content !== undefined && !op.options?.overwrite) {
      if (op.options?.ignoreIfExists) return;
      this.#refuse(`the edit renames ${from.target.shown} onto ${to.target.shown}, which exists`);
    }
    to.content = from.content;
    from.content = undefined;
    this.#result.renamed.push({ from: from.target.rel, to: to.target.rel });
  }

  async delete(op: DeleteFile): Promise<void> {
    const state = await this.#load(op.uri);
    if (state.content === undefined) {
      if (op.options?.ignoreIfNotExists) return;
      this.#refuse(`the edit deletes ${state.target.shown}, which does not exist`);
    }
    state.content = undefined;
    this.#result.deleted.push(state.target.rel);
  }

  async commit(): Promise<AppliedEdit> {
    const files = [...this.#files.values()];
    const writes = files.filter((f) => f.content !== undefined && f.content !== f.original);
    const deletes = files.filter((f) => f.content === undefined && f.original !== undefined);
    await commitChanges(this.tool, {
      writes: writes.map((f) => ({ target: f.target, content: f.content! })),
      deletes: deletes.map((f) => f.target),
      plannedFrom: new Map(files.map((f) => [f.target.real, f.original])),
    });
    // Sorted by path: the server's edit lists files in whatever order its map had.
    this.#result.files = files
      .filter((f) => f.edits > 0)
      .map((f) => ({ path: f.target.rel, edits: f.edits }))
      .sort((a, b) => a.path.localeCompare(b.path));
    this.#result.written = [...writes, ...deletes].map((f) => f.target.rel);
    return this.#result;
  }
}

/**
 * Applies LSP text edits to a text (positions in the server's encoding); overlapping edits are refused. The text is
 * put together once from its kept pieces and the edits' new texts — spliced anew for each edit, 50,000 edits of a
 * rename in one 0.6 MB file held the host's thread over two minutes — and each line's columns are converted once.
 * Inserts at one position keep the order the server gave them (LSP's rule).
 */
export function applyTextEdits(
  rel: string,
  text: string,
  edits: readonly TextEdit[],
  encoding: string,
  tool: string,
): string {
  const offsets = new TextOffsets(text, encoding);
  const spans = edits
    .map((e, order) => {
      const from = offsets.at(e.range.start.line, e.range.start.character);
      const to = Math.max(from, offsets.at(e.range.end.line, e.range.end.character));
      return { from, to, text: e.newText, order };
    })
    .sort((a, b) => a.from - b.from || a.to - b.to || a.order - b.order);
  const pieces: string[] = [];
  let kept = 0;
  for (const span of spans) {
    if (span.from < kept)
      throw new ToolError(`${tool}: the server's edits to ${shownPath(rel)} overlap; nothing was changed.`);
    pieces.push(text.slice(kept, span.from), span.text);
    kept = span.to;
  }
  pieces.push(text.slice(kept));
  return pieces.join("");
}

/** Offsets in a text of LSP positions: line starts found once, a line's columns converted once per line. */
class TextOffsets {
  readonly #starts: number[] = [0];
  /** Per line, the encoded length before each UTF-16 index (utf-8 and utf-32 only). */
  readonly #encoded = new Map<number, Int32Array>();

  constructor(
    readonly text: string,
    readonly encoding: string,
  ) {
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) this.#starts.push(at + 1);
  }

  /** The offset of `character` (in the encoding) on `line`: past the end of the text, its end; clamped to the line. */
  at(line: number, character: number): number {
    if (line >= this.#starts.length) return this.text.length;
    const start = this.#starts[line]!;
    const next = line + 1 < this.#starts.length ? this.#starts[line + 1]! - 1 : this.text.length;
    const end = next > start && this.text.charCodeAt(next - 1) === 13 ? next - 1 : next;
    if (this.encoding !== "utf-8" && this.encoding !== "utf-32")
      return start + Math.min(end - start, character);
    let encoded = this.#encoded.get(line);
    if (!encoded) {
      encoded = encodedLengths(this.text, start, end, this.encoding);
      this.#encoded.set(line, encoded);
    }
    return start + lastAtOrBefore(encoded, character);
  }
}

/** For each UTF-16 index of text[start, end) (and its end), the encoded length of what comes before it. */
function encodedLengths(text: string, start: number, end: number, encoding: string): Int32Array {
  const lengths = new Int32Array(end - start + 1);
  let encoded = 0;
  for (let i = start; i < end; ) {
    const point = text.codePointAt(i)!;
    const units = point > 0xffff ? 2 : 1;
    encoded += encoding === "utf-32" ? 1 : point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    // Inside a surrogate pair counts as after it: a column never splits a character.
    for (let u = 1; u <= units; u++) lengths[i - start + u] = encoded;
    i += units;
  }
  return lengths;
}

/** The last index whose encoded length is at most `column` (a column inside a character: its start). */
function lastAtOrBefore(lengths: Int32Array, column: number): number {
  let low = 0;
  let high = lengths.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lengths[mid]! <= column) low = mid;
    else high = mid - 1;
  }
  return low;
}
