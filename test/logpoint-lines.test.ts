import { describe, expect, it } from "vitest";
import { Logpoints } from "../src/dap/breakpoints.js";

function logging(...messages: string[]): Logpoints {
  const logpoints = new Logpoints();
  logpoints.set(
    "/w/app.py",
    messages.map((log_message, i) => ({ line: i + 1, log_message })),
  );
  return logpoints;
}

describe("a logpoint's output is told from the program's in linear time", () => {
  it("six {expr} against a 200-character line that almost matches: answered at once (as a regular expression, 495 s of the host's thread)", () => {
    const logpoints = logging(`${Array.from({ length: 6 }, (_, i) => `{v${i}}a`).join("")}Z`);
    expect(logpoints.take("a".repeat(200))).toBeUndefined();
    expect(logpoints.take(`${"a".repeat(200)}Z`)).toBe(`${"a".repeat(200)}Z`);
  });

  it("a message's text must be there in order, its {expr} standing for anything, its other characters as written", () => {
    const logpoints = logging("x={x} y={y}", "{a}ab{b}ba", "a.b (total)");
    expect(logpoints.take("x=1 y=[2, 3]\n")).toBe("x=1 y=[2, 3]");
    expect(logpoints.take("x=1 z=2")).toBeUndefined();
    expect(logpoints.take("aba")).toBeUndefined();
    expect(logpoints.take("abba")).toBe("abba");
    expect(logpoints.take("a.b (total)")).toBe("a.b (total)");
    expect(logpoints.take("axb (total)")).toBeUndefined();
    expect(logpoints.drain()).toEqual({ logged: ["x=1 y=[2, 3]", "abba", "a.b (total)"], logged_total: 3 });
  });
});
