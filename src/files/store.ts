/**
 * runbound's file tools over one workdir: read, write, edit, apply_patch. Every path is confined first; every
 * write is atomic; what was written is reported so the run's after-write hooks can follow it.
 */
import { statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { writeAtomic } from "./atomic.js";
import { applyPatch, checkPatch, type PatchResult } from "./patch/apply.js";
import { type ConfinedPath, confine } from "./paths.js";
import { isBytes, readRegular, readRegularHead, readRegularSync, regularBytes } from "./regular.js";
import {
  lineOfOffset,
  looksBinary,
  MAX_TEXT_BYTES,
  normalize,
  plural,
  shapeOf,
  spliceNormalized,
  splitLines,
  tooLargeToChange,
} from "./text.js";
import { firstNonUtf8Line, readUtf8 } from "./utf8.js";
import { shownPath } from "./visible.js";

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** A page of read stops here (it answered 40 MB for 10,000 lines of 2,000 characters); the footer says where on. */
export const READ_PAGE_CHARS = 100_000;
const MAX_ENTRIES = 500;
/** Bytes of an existing file write reads to keep its shape (its line endings, its BOM). */
const HEAD_BYTES = 64 * 1024;

import type { EditResult, ReadResult, WriteResult } from "./schema.js";

export type { EditResult, ReadResult, WriteResult };

interface EditArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

export class FileStore {
  constructor(readonly workdir: string) {}

  async read(args: {
    path: string;
    offset?: number | undefined;
    limit?: number | undefined;
  }): Promise<{ text: string; result: ReadResult }> {
    const target = await confine(this.workdir, args.path);
    const info = statOrThrow(target.real, target.shown);
    if (info.isDirectory()) return this.#listDirectory(target.real, target.rel);
    if (info.size > MAX_TEXT_BYTES) {
      throw new ToolError(`${target.shown} is ${info.size} bytes, over read's ${MAX_TEXT_BYTES}-byte limit.`);
    }
    // Synchronous: a source file reads in microseconds, a promise-based read costs far more per call.
    const bytes = regularBytes(readRegularSync(target.real), target.shown, "read");
    if (looksBinary(bytes))
      throw new ToolError(`${target.shown} is a binary file (${bytes.length} bytes); read shows text only.`);
    const lines = splitLines(normalize(bytes.toString("utf8")));
    const total = lines.length;
    const nonUtf8 = firstNonUtf8Line(bytes);
    const encoding =
      nonUtf8 === undefined
        ? ""
        : `; not UTF-8: line ${nonUtf8} has bytes shown as \uFFFD, and the tools that change files refuse it until it is converted`;
    const from = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (total === 0) {
      return {
        text: `${target.shown} is empty (0 lines).`,
        result: {
          path: target.rel,
          kind: "file",
          content: "",
          from_line: 0,
          to_line: 0,
          total_lines: 0,
          truncated: false,
        },
      };
    }
    if (from > total) {
      throw new ToolError(
        `\`offset\` ${from} is past the end: ${target.shown} has ${plural(total, "line")}. Use an offset from 1 to ${total}.`,
      );
    }
    const asked = Math.min(total, from + limit - 1);
    const shown: string[] = [];
    let chars = 0;
    for (let n = from; n <= asked && (shown.length === 0 || chars < READ_PAGE_CHARS); n++) {
      const line = lines[n - 1] ?? "";
      const clipped =
        line.length > MAX_LINE_CHARS
          ? `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more characters]`
          : line;
      shown.push(clipped);
      chars += clipped.length + 1;
    }
    const to = from + shown.length - 1;
    const width = String(to).length;
    const numbered = shown.map((line, i) => `${String(from + i).padStart(width)}\t${line}`).join("\n");
    const truncated = from > 1 || to < total;
    const paged =
      to < asked ? `; the page stopped at ${READ_PAGE_CHARS.toLocaleString("en-US")} characters` : "";
    const footer = truncated
      ? `\n(showing lines ${from}-${to} of ${total}${paged}${to < total ? `; call read with offset ${to + 1} for more` : ""})`
      : "";
    return {
      text: `${target.shown} (${plural(total, "line")}${encoding})\n${numbered}${footer}`,
      result: {
        path: target.rel,
        kind: "file",
        content: shown.join("\n"),
        from_line: from,
        to_line: to,
        total_lines: total,
        truncated,
      },
    };
  }

  /** What write would refuse, found without writing: a path outside the workdir, a directory. */
  async checkWrite(args: { path: string }): Promise<void> {
    await this.#writeTarget(args.path);
  }

  /** The file write replaces: its size and its first bytes (its shape), when it exists; never read whole. */
  async #writeTarget(file: string): Promise<{ target: ConfinedPath; size?: number; head?: string }> {
    const target = await confine(this.workdir, file);
    try {
      const info = await stat(target.real);
      if (info.isDirectory())
        throw new ToolError(`${target.shown} is a directory; give a file path to write.`);
      const head = regularBytes(await readRegularHead(target.real, HEAD_BYTES), target.shown, "write");
      return { target, size: info.size, head: head.toString("utf8") };
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return { target };
    }
  }

  async write(args: {
    path: string;
    content: string;
  }): Promise<{ text: string; result: WriteResult; written: string[] }> {
    const { target, size, head } = await this.#writeTarget(args.path);
    const { content, kept } = inShapeOf(head, args.content);
    const lines = splitLines(content).length;
    const bytes = Buffer.byteLength(content);
    if (size === bytes && (await sameBytes(target.real, content))) {
      return {
        text: `${target.shown} unchanged (the content is the same).`,
        result: { path: target.rel, status: "unchanged", lines, bytes },
        written: [],
      };
    }
    await writeAtomic(target.real, content);
    const status = size === undefined ? "created" : "overwritten";
    return {
      text: `${status === "created" ? "Created" : "Overwrote"} ${target.shown} (${plural(lines, "line")}, ${plural(bytes, "byte")}${kept ? `; written with ${kept}, as the file had them` : ""}).`,
      result: { path: target.rel, status, lines, bytes },
      written: [target.rel],
    };
  }

  /** What edit would refuse, found without writing: the file, and `old_string` in it once (or replace_all). */
  async checkEdit(args: EditArgs): Promise<void> {
    await this.#planEdit(args);
  }

  async edit(args: EditArgs): Promise<{ text: string; result: EditResult; written: string[] }> {
    const { target, updated, offsets, lines } = await this.#planEdit(args);
    await writeAtomic(target.real, updated);
    return {
      text: `Edited ${target.shown}: ${plural(offsets.length, "replacement")} at line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}.`,
      result: { path: target.rel, replacements: offsets.length, lines },
      written: [target.rel],
    };
  }

  async #planEdit(args: EditArgs) {
    const target = await confine(this.workdir, args.path);
    const info = statOrThrow(target.real, target.shown);
    if (info.isDirectory())
      throw new ToolError(
        `\`path\` ${target.shown} is a directory; edit changes a file: give a file's path.`,
      );
    if (info.size > MAX_TEXT_BYTES) throw new ToolError(tooLargeToChange(target.shown, info.size, "edit"));
    if (args.old_string === "") {
      throw new ToolError(
        "`old_string` is empty; quote the exact text to replace (use write to create a file).",
      );
    }
    if (args.old_string === args.new_string)
      throw new ToolError("`old_string` and `new_string` are the same; nothing to change.");
    const raw = await readUtf8(target.real, target.shown, "edit");
    const shape = shapeOf(raw);
    const text = normalize(raw);
    const needle = normalize(args.old_string);
    const replacement = normalize(args.new_string);
    const offsets: number[] = [];
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
      offsets.push(at);
    if (offsets.length === 0) throw new ToolError(notFoundMessage(target.shown, text, needle));
    const lines = offsets.map((at) => lineOfOffset(text, at));
    if (offsets.length > 1 && !args.replace_all) {
      throw new ToolError(
        `\`old_string\` occurs ${offsets.length} times in ${target.shown} (lines ${lines.join(", ")}); ` +
          "include more surrounding lines to make it unique, or set `replace_all: true`.",
      );
    }
    // Made in the file's own text: lines the edit does not touch keep their line endings, mixed ones too.
    const updated = spliceNormalized(
      raw,
      offsets.map((at) => ({ start: at, end: at + needle.length, text: replacement })),
      shape.eol,
    );
    return { target, updated, offsets, lines };
  }

  async applyPatch(patch: string): Promise<{ text: string; result: PatchResult; written: string[] }> {
    return applyPatch(this.workdir, patch);
  }

  /** What apply_patch would refuse, found without writing: the patch parsed and every hunk placed. */
  async checkPatch(patch: string): Promise<void> {
    await checkPatch(this.workdir, patch);
  }

  async #listDirectory(real: string, rel: string): Promise<{ text: string; result: ReadResult }> {
    const dirents = await readdir(real, { withFileTypes: true });
    const names = dirents
      .map((d) => (d.isDirectory() ? `${d.name}/` : d.name))
      .sort((a, b) => a.localeCompare(b));
    const shown = names.slice(0, MAX_ENTRIES);
    const more = names.length > shown.length ? `\n(showing ${shown.length} of ${names.length} entries)` : "";
    // Text quotes a name that could pass for more entries; the harness's entries are the names as they are.
    return {
      text: `${shownPath(`${rel}/`)} is a directory (${plural(names.length, "entry", "entries")}):\n${shown.map(shownPath).join("\n")}${more}`,
      result: {
        path: rel,
        kind: "directory",
        content: "",
        from_line: 0,
        to_line: 0,
        total_lines: 0,
        truncated: more !== "",
        entries: shown,
      },
    };
  }
}

function statOrThrow(real: string, shown: string) {
  try {
    return statSync(real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError(
        `${shown} does not exist. Check the path (read a directory to list it), or use write to create the file.`,
      );
    }
    throw error;
  }
}

/** Names where a near-miss of the first line of `needle` is, so the model can copy the exact text. */
function notFoundMessage(shown: string, text: string, needle: string): string {
  const first =
    needle
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  const near: number[] = [];
  if (first) {
    splitLines(text).forEach((line, i) => {
      if (near.length < 5 && line.trim() === first) near.push(i + 1);
    });
  }
  const hint = near.length
    ? ` Its first line appears (ignoring indentation) at line${near.length > 1 ? "s" : ""} ${near.join(", ")}; check whitespace and the lines after it.`
    : " Read the file and copy the exact text, including whitespace.";
  return `\`old_string\` was not found in ${shown}.${hint}`;
}

/** Whether the file holds exactly `content` (a file that is no longer regular does not). */
async function sameBytes(real: string, content: string): Promise<boolean> {
  const now = await readRegular(real);
  return isBytes(now) && now.equals(Buffer.from(content));
}

/**
 * New content for a file that exists, in the file's shape: written with "\n" only, it gets the file's CRLF line
 * endings and its BOM back (or a whole-file diff in a CRLF repository), and the answer says what was kept.
 */
function inShapeOf(head: string | undefined, content: string): { content: string; kept?: string } {
  if (head === undefined) return { content };
  const shape = shapeOf(head);
  const crlf = shape.eol === "\r\n" && content.includes("\n") && !content.includes("\r\n");
  const bom = shape.bom && !content.startsWith("\uFEFF");
  if (!crlf && !bom) return { content };
  const kept = [crlf ? "CRLF line endings" : "", bom ? "a byte order mark" : ""]
    .filter(Boolean)
    .join(" and ");
  return { content: `${bom ? "\uFEFF" : ""}${crlf ? content.replace(/\n/g, "\r\n") : content}`, kept };
}
