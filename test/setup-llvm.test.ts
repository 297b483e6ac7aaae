/**
 * clangd and lldb come from the system's packages under versioned names: runbound runs the newest one on PATH —
 * `clangd-22` over Debian's `clangd`, which leads to llvm-14 — and setup installs the newest apt offers. A plain name
 * whose version cannot be told (a user's own build) is their choice and wins.
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { onPath } from "../src/setup/components.mjs";
import { llvmMajor, newestAptPackage } from "../src/setup/llvm.mjs";

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

function program(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, 0o755);
  return file;
}

describe("clangd and lldb: the newest version", () => {
  it("a versioned name newer than where the plain name leads wins; an older one does not", () => {
    const root = mkdtempSync(path.join(tmpdir(), "runbound-llvm-"));
    const bin = path.join(root, "bin");
    symlinkSync(program(path.join(root, "lib/llvm-14/bin/clangd")), path.join(root, "clangd-link"));
    mkdirSync(bin);
    symlinkSync(path.join(root, "clangd-link"), path.join(bin, "clangd"));
    program(path.join(bin, "clangd-13"));
    process.env.PATH = bin;
    expect(llvmMajor(path.join(bin, "clangd"))).toBe(14);
    expect(onPath("clangd", true)).toBe(path.join(bin, "clangd"));
    program(path.join(bin, "clangd-22"));
    expect(onPath("clangd", true)).toBe(path.join(bin, "clangd-22"));
    // Without `versioned` only the plain name counts.
    expect(onPath("clangd")).toBe(path.join(bin, "clangd"));
  });

  it("a plain name whose version cannot be told is the user's choice and wins over any versioned one", () => {
    const bin = mkdtempSync(path.join(tmpdir(), "runbound-llvm-"));
    program(path.join(bin, "lldb-dap"));
    program(path.join(bin, "lldb-dap-22"));
    process.env.PATH = bin;
    expect(llvmMajor(path.join(bin, "lldb-dap"))).toBeUndefined();
    expect(onPath("lldb-dap", true)).toBe(path.join(bin, "lldb-dap"));
  });

  it("apt's newest clangd and lldb on this machine are the ones on PATH (setup installed them)", () => {
    const clangd = newestAptPackage("clangd");
    const lldb = newestAptPackage("lldb");
    expect(clangd?.name).toMatch(/^clangd-\d+$/);
    expect(llvmMajor(onPath("clangd", true)!)).toBe(clangd!.major);
    expect(llvmMajor(onPath("lldb-dap", true)!)).toBe(lldb!.major);
  });
});
