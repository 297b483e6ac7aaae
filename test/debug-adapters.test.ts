/**
 * Debug adapters of the harness's own: lldb's real adapter configured under another name debugs a program as the
 * built-in ones do; configurations that cannot work are refused at createRun, naming the key; one whose command is
 * missing is listed as not usable, and why.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { onPath } from "../src/setup/components.mjs";
import { call, textOf, track, workdirWith } from "./helpers.js";

const LLDB = onPath("lldb-dap", true) ?? onPath("lldb-vscode", true);

const MINE = {
  id: "my-lldb",
  command: LLDB ?? "lldb-dap",
  extensions: [".dbg"],
  rootMarkers: ["CMakeLists.txt"],
  launch: { program: "${program}", args: "${args}", cwd: "${cwd}", stopOnEntry: false },
};

describe("debug adapters of the harness's own", () => {
  it("lldb's adapter under another name: listed, chosen by extension, stops at a breakpoint with the arguments given", async () => {
    expect(LLDB, "lldb's adapter (setup installs it)").toBeDefined();
    const workdir = await workdirWith({
      "CMakeLists.txt": "",
      "args.c":
        '#include <stdio.h>\nint main(int argc, char **argv) {\n  int n = argc;\n  printf("%d %s\\n", n, argv[1]);\n  return 0;\n}\n',
    });
    execFileSync("gcc", ["-g", "-O0", "-o", path.join(workdir, "args.dbg"), path.join(workdir, "args.c")]);
    const run = track(
      await createRun({
        workdir,
        conversationId: "mine",
        approver: "always",
        lsp: false,
        debug: { adapters: [MINE] },
      }),
    );
    const client = await run.link({ surface: "full" });
    const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
    expect(await debug({ operation: "adapters" })).toMatch(
      /^my-lldb: usable — my-lldb \(the harness's adapter\) at \S+; roots: \.$/m,
    );
    await debug({ operation: "breakpoints", file: "args.c", lines: [4] });
    const launched = await debug({ operation: "launch", program: "args.dbg", args: ["two", "three"] });
    expect(launched).toMatch(/^Launched args\.dbg under my-lldb, stopped/);
    expect(launched).toMatch(/Stopped \(breakpoint\) in thread \d+ at args\.c:4 in main/);
    expect(launched).toMatch(/Locals: .*\bn = 3\b/);
    await debug({ operation: "continue" });
    // The program's last line may come after the answer to continue (its output is its own stream).
    let output = "";
    for (let i = 0; i < 50 && !/two/.test(output); i++) {
      output = await debug({ operation: "output" });
      if (!/two/.test(output)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(output).toMatch(/^3 two\r?\n/);
  });

  it("a configuration that cannot work is refused at createRun, naming the adapter and the key", async () => {
    const workdir = await workdirWith();
    const refused = (adapter: Record<string, unknown>) =>
      createRun({ workdir, conversationId: "c", lsp: false, debug: { adapters: [adapter as never] } });
    await expect(refused({ ...MINE, command: "" })).rejects.toThrow(
      'debug.adapters[0] ("my-lldb"): `command` must be the adapter\'s executable',
    );
    await expect(refused({ ...MINE, transport: "tcp" })).rejects.toThrow(
      'debug.adapters[0] ("my-lldb"): unknown key `transport` (the keys are id, command, args, extensions, rootMarkers, launch)',
    );
    await expect(refused({ ...MINE, id: "lldb" })).rejects.toThrow(
      'debug.adapters[0] ("lldb"): `id` "lldb" is taken (a built-in adapter)',
    );
    await expect(refused({ ...MINE, launch: { file: "x" } })).rejects.toThrow(
      'debug.adapters[0] ("my-lldb"): `launch` never names "${program}": the adapter would not know what to run',
    );
    await expect(refused({ ...MINE, extensions: "dbg" })).rejects.toThrow(
      'debug.adapters[0] ("my-lldb"): `extensions` must be a list like [".zig"] ("" for binaries without one)',
    );
  });

  it("a command that is not there: listed as not usable, and why", async () => {
    const workdir = await workdirWith({ "CMakeLists.txt": "", "p.dbg": "" });
    const run = track(
      await createRun({
        workdir,
        conversationId: "gone",
        approver: "always",
        lsp: false,
        debug: { adapters: [{ ...MINE, command: "/nonexistent/adapter" }] },
      }),
    );
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "debug", { operation: "adapters" }))).toMatch(
      /^my-lldb: not usable — \/nonexistent\/adapter was not found or is not executable\. Fix: install \/nonexistent\/adapter/m,
    );
  });
});
