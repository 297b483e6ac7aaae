/**
 * What a text ends with, taken off in time linear in it: as `/\n+$/`-style regular expressions, a long run that does
 * not end the text was tried from each of its characters (80,000 spaces in a hover: 2 s). The same answers as those
 * expressions, which the call sites used (a kernel's output, a one-line summary, an adapter's error, a rewrite's
 * captured list).
 */
import { describe, expect, it } from "vitest";
import { withoutTrailing, withoutTrailingLineBreaks } from "../src/files/text.js";

describe("trailing runs", () => {
  it("answer as the regular expressions did", () => {
    for (const text of [
      "",
      "a",
      "a\n",
      "a\n\n",
      "\n",
      "a\nb",
      "a.\n.",
      "a..",
      "a  ",
      "a ",
      " ",
      "a\r\n",
      "a\r\r\n",
      "a\n\r\n\n",
      "a\r",
    ]) {
      expect(withoutTrailing(text, "\n")).toBe(text.replace(/\n+$/, ""));
      expect(withoutTrailing(text, ".")).toBe(text.replace(/\.+$/, ""));
      expect(withoutTrailing(text, " ", 2)).toBe(text.replace(/ {2,}$/, ""));
      expect(withoutTrailingLineBreaks(text)).toBe(text.replace(/(\r?\n)+$/, ""));
    }
  });

  it("a run of a million inside the text costs its length, not its square", () => {
    const inner = `a${"\n".repeat(1_000_000)}b`;
    expect(withoutTrailing(inner, "\n")).toBe(inner);
    expect(withoutTrailingLineBreaks(inner)).toBe(inner);
    expect(withoutTrailing(`a${" ".repeat(1_000_000)}b  `, " ", 2)).toBe(`a${" ".repeat(1_000_000)}b`);
  });
});
