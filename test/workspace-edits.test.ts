/**
 * A server's text edits applied to a file: the same text as applying them one by one (the obvious reference), on
 * random texts and edits in every position encoding; inserts at one position in the server's order (LSP's rule);
 * overlaps refused. Applied by joining pieces once — spliced anew per edit, 20,000 edits of a rename held the host's
 * thread 2.8 s and 50,000 over two minutes (the bench row `lsp` "rename of 50,000 edits" measures the thread).
 */

import { describe, expect, it } from "vitest";
import type { TextEdit } from "vscode-languageserver-protocol";
import { fromEncoding, toEncoding } from "../src/lsp/actions/positions.js";
import { applyTextEdits } from "../src/lsp/rename/workspace-edit.js";

const ENCODINGS = ["utf-16", "utf-8", "utf-32"] as const;

/** One edit at a time, from the last, each position converted on its own line: slow and plainly right. */
function reference(text: string, edits: readonly TextEdit[], encoding: string): string {
  const lines = text.split("\n");
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const at = (line: number, character: number) => {
    if (line >= lines.length) return text.length;
    const lineText = lines[line]!.replace(/\r$/, "");
    return starts[line]! + Math.min(lineText.length, fromEncoding(lineText, character, encoding));
  };
  const spans = edits
    .map((e, order) => ({
      from: at(e.range.start.line, e.range.start.character),
      to: at(e.range.end.line, e.range.end.character),
      text: e.newText,
      order,
    }))
    .sort((a, b) => b.from - a.from || b.to - a.to || b.order - a.order);
  let out = text;
  for (const span of spans) out = out.slice(0, span.from) + span.text + out.slice(span.to);
  return out;
}

/** A small deterministic generator, so a failure prints a call that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABET = ["a", "b", " ", "é", "中", "😀", "\r", "\t", "x", "y"];

function randomCase(seed: number, encoding: string): { text: string; edits: TextEdit[] } {
  const next = random(seed);
  const lines = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
    Array.from(
      { length: Math.floor(next() * 12) },
      () => ALPHABET[Math.floor(next() * ALPHABET.length)],
    ).join(""),
  ).map((line) => line.replaceAll("\r", "") + (next() < 0.3 ? "\r" : ""));
  const text = lines.join("\n");
  // Edits at character boundaries, in the encoding, that do not overlap: cut points chosen in order.
  const points: { line: number; character: number }[] = [];
  for (const [line, content] of lines.entries()) {
    const visible = content.replace(/\r$/, "");
    for (let i = 0; i <= visible.length; i++) {
      if (i > 0 && i < visible.length && /[\udc00-\udfff]/.test(visible[i]!)) continue;
      if (next() < 0.35) points.push({ line, character: toEncoding(visible, i, encoding) });
    }
  }
  const edits: TextEdit[] = [];
  for (let i = 0; i + 1 < points.length; i += 2) {
    const end = next() < 0.3 ? points[i]! : points[i + 1]!;
    edits.push({ range: { start: points[i]!, end }, newText: next() < 0.5 ? "Z" : "" });
    if (next() < 0.2) edits.push({ range: { start: end, end }, newText: "I" });
  }
  return { text, edits: edits.sort(() => next() - 0.5) };
}

describe("a server's text edits", () => {
  it("give the same text as one edit at a time, on 3,000 random texts and edits in each encoding", () => {
    for (const encoding of ENCODINGS)
      for (let seed = 1; seed <= 3000; seed++) {
        const { text, edits } = randomCase(seed, encoding);
        const ours = applyTextEdits("f.txt", text, edits, encoding, "lsp_rename");
        expect(ours, `randomCase(${seed}, "${encoding}")`).toBe(reference(text, edits, encoding));
      }
  });

  it("inserts at one position come out in the server's order; a position past a line or the text clamps", () => {
    const at = (line: number, character: number) => ({ line, character });
    const insert = (line: number, character: number, newText: string): TextEdit => ({
      range: { start: at(line, character), end: at(line, character) },
      newText,
    });
    expect(applyTextEdits("f", "ab\r\ncd", [insert(0, 1, "1"), insert(0, 1, "2")], "utf-16", "t")).toBe(
      "a12b\r\ncd",
    );
    expect(applyTextEdits("f", "ab\r\ncd", [insert(0, 99, "!")], "utf-16", "t")).toBe("ab!\r\ncd");
    expect(applyTextEdits("f", "ab\ncd", [insert(7, 0, "!")], "utf-16", "t")).toBe("ab\ncd!");
    // A column of UTF-8 bytes inside a character stands for its start, never for part of it.
    expect(applyTextEdits("f", "é中x", [insert(0, 3, "|")], "utf-8", "t")).toBe("é|中x");
    expect(applyTextEdits("f", "😀x", [insert(0, 1, "|")], "utf-32", "t")).toBe("😀|x");
  });

  it("overlapping edits are refused, nothing applied", () => {
    const edit = (from: number, to: number): TextEdit => ({
      range: { start: { line: 0, character: from }, end: { line: 0, character: to } },
      newText: "",
    });
    expect(() =>
      applyTextEdits("f.ts", "abcdefgh", [edit(1, 4), edit(3, 6)], "utf-16", "lsp_rename"),
    ).toThrow("lsp_rename: the server's edits to f.ts overlap; nothing was changed.");
    expect(applyTextEdits("f.ts", "abcdefgh", [edit(1, 4), edit(4, 6)], "utf-16", "t")).toBe("agh");
  });

  it("50,000 edits on one 0.6 MB file give the renamed text", () => {
    const lines = ["let value = 0;", ...Array.from({ length: 50_000 }, (_, i) => `value += ${i % 10};`)];
    const edits: TextEdit[] = lines.map((_, line) => ({
      range: { start: { line, character: line === 0 ? 4 : 0 }, end: { line, character: line === 0 ? 9 : 5 } },
      newText: "total",
    }));
    const text = lines.join("\n");
    expect(text.length).toBeGreaterThan(600_000);
    expect(applyTextEdits("a.ts", text, edits, "utf-8", "lsp_rename")).toBe(
      text.replaceAll("value", "total"),
    );
  });
});
