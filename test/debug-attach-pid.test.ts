/**
 * attach by process id, on debugpy (injected through gdb), delve and lldb: a program started outside runbound, in
 * the workdir, is joined, stops at a breakpoint set after the attach, and keeps running after terminate (a detach).
 * Then the refusals: runbound itself, a program outside the workdir, a pid that is gone.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { isAlive } from "../src/proc/tree.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const FILES = {
  "pyproject.toml": "",
  "spin.py": "import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.02)\n",
  "go/go.mod": "module example.com/spin\n\ngo 1.22\n",
  "go/main.go":
    'package main\n\nimport "time"\n\nfunc main() {\n\tn := 0\n\tfor {\n\t\tn++\n\t\ttime.Sleep(20 * time.Millisecond)\n\t}\n}\n',
  "c/CMakeLists.txt": "",
  "c/spin.c":
    "#include <unistd.h>\nint main(void) {\n  volatile long n = 0;\n  for (;;) {\n    n++;\n    usleep(20000);\n  }\n}\n",
};

const CASES: { adapter: string; file: string; line: number; start: (dir: string) => [string, string[]] }[] = [
  { adapter: "debugpy", file: "spin.py", line: 4, start: (dir) => ["python3", [path.join(dir, "spin.py")]] },
  { adapter: "delve", file: "go/main.go", line: 8, start: (dir) => [path.join(dir, "go/spin"), []] },
  { adapter: "lldb", file: "c/spin.c", line: 5, start: (dir) => [path.join(dir, "c/spin"), []] },
];

/** Whether gdb can call a function inside a process here (a sandboxed kernel refuses its register writes). */
function gdbCanCall(): boolean {
  const target = spawn("sleep", ["30"], { stdio: "ignore" });
  try {
    const out = spawnSync("gdb", ["--nx", "--batch", "-p", String(target.pid), "-ex", "call (int)getpid()"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    return /^\$1 = \d+/m.test(out.stdout);
  } finally {
    target.kill("SIGKILL");
  }
}

describe("attach by process id", () => {
  let run: Run;
  let client: RunLink;
  let dir: string;
  let remove: () => Promise<void>;
  const children: ChildProcess[] = [];
  const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    execFileSync("go", ["build", "-gcflags=all=-N -l", "-o", "spin", "."], { cwd: path.join(dir, "go") });
    execFileSync("gcc", ["-g", "-O0", "-o", path.join(dir, "c/spin"), path.join(dir, "c/spin.c")]);
    run = await createRun({ workdir: dir, conversationId: "pid", approver: "always", lsp: false });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await run?.dispose();
    await remove?.();
  });

  for (const c of CASES) {
    const injects = c.adapter !== "debugpy" || gdbCanCall();
    const title = injects
      ? `${c.adapter}: joins a running program, stops at a breakpoint, and leaves it running at terminate`
      : "debugpy: where gdb cannot call into a process (gVisor here), the attach is refused at once, saying why";
    it(title, async () => {
      const [command, args] = c.start(dir);
      const child = spawn(command, args, { cwd: dir, stdio: "ignore" });
      children.push(child);
      await new Promise((r) => setTimeout(r, 500));
      const attached = await debug({ operation: "attach", pid: child.pid });
      if (!injects) {
        // gVisor (this machine) refuses gdb's writes into a process: debugpy's injection fails, said at once.
        expect(attached).toMatch(
          /^debugpy could not inject itself into .* through gdb \(gdb: "Couldn't write extended state status: Bad address\."\): this system does not let gdb call into a running process .* attach by port\.$/,
        );
        child.kill("SIGKILL");
        return;
      }
      expect(attached).toMatch(new RegExp(`^Attached to .* with .*attached to pid ${child.pid}`));
      // Said in the answer as on the card: a debugger on the host can make the program run any code.
      expect(attached).toContain(
        `The debugger runs on the host beside pid ${child.pid}, outside the sandbox: an evaluate or set_variable makes that program run any code, as the harness's user.`,
      );
      await debug({ operation: "breakpoints", file: c.file, lines: [c.line] });
      let detached = "";
      try {
        let status = "";
        for (let i = 0; i < 100 && !/Stopped \(/.test(status); i++) {
          await new Promise((r) => setTimeout(r, 100));
          status = await debug({ operation: "status" });
        }
        // Under gVisor (CI, loaded), lldb-server now and then gets the trap of a breakpoint as a plain SIGTRAP and
        // reports a signal, not a breakpoint; runbound says what the adapter said. The stop is at the line either way.
        const reason = c.adapter === "lldb" ? "(?:breakpoint|exception)" : "breakpoint";
        expect(status).toMatch(new RegExp(`Stopped \\(${reason}\\) in thread \\d+ at ${c.file}:${c.line} `));
        if (/Stopped \(exception\)/.test(status)) expect(status).toContain("Exception: signal SIGTRAP");
        await debug({ operation: "breakpoints", file: c.file, lines: [] });
      } finally {
        // Detached even when a check above failed: a session left open would fail the tests after this one.
        detached = await debug({ operation: "terminate" });
      }
      expect(detached).toMatch(/^Detached from .*; the program keeps running/);
      await new Promise((r) => setTimeout(r, 300));
      expect(await isAlive(child.pid!)).toBe(true);
      child.kill("SIGKILL");
    });
  }

  it("refuses a process runbound started (its language servers run on the host); the card says where the debugger runs", async () => {
    const other = await createRun({ workdir: dir, conversationId: "own", approver: "always", lsp: false });
    try {
      const launcher = await other.link({ surface: "full" });
      await call(launcher, "debug", { operation: "breakpoints", file: "spin.py", lines: [4] });
      await call(launcher, "debug", { operation: "launch", program: "spin.py" });
      // The debug adapter runbound started for it (on the host, as a language server would be).
      const pid = other.resource("debug")!.running!.pid!;
      const cards: string[] = [];
      const asking = await createRun({
        workdir: dir,
        conversationId: "asks",
        lsp: false,
        approver: async (request) => {
          cards.push(request.summary);
          return { allow: true };
        },
      });
      try {
        const refused = textOf(
          await call(await asking.link({ surface: "full" }), "debug", { operation: "attach", pid }),
        );
        expect(refused).toMatch(
          /^`.+` \(pid \d+\) is one of runbound's own processes \(a language server, a kernel, a debuggee, a worker\); attach joins programs started outside runbound\. Debug your program with launch\.$/,
        );
        expect(cards).toEqual([
          expect.stringMatching(
            /^attach a debugger to pid \d+ \(`.+`\) on the host, outside the sandbox: through it, that program can be made to run any code as the harness's user$/,
          ),
        ]);
      } finally {
        await asking.dispose();
      }
    } finally {
      await other.dispose();
    }
  });

  it('a run created with confine: "required" refuses attach by pid, saying why and what to do instead', async () => {
    const child = spawn(path.join(dir, "go/spin"), [], { cwd: dir, stdio: "ignore" });
    children.push(child);
    const required = await createRun({
      workdir: dir,
      conversationId: "required",
      approver: "always",
      lsp: false,
      confine: "required",
    });
    try {
      const refused = textOf(
        await call(await required.link({ surface: "full" }), "debug", {
          operation: "attach",
          pid: child.pid,
        }),
      );
      expect(refused).toBe(
        `attach by pid is refused on this run: it was created with confine: "required", and a debugger joining pid ${child.pid} runs on the host, outside the sandbox, where it can make that program run any code as the harness's user. Start the program under a debug server inside the run (eval or a worker: \`python -m debugpy --listen 127.0.0.1:PORT app.py\`) and attach by port, or launch it.`,
      );
    } finally {
      await required.dispose();
      child.kill("SIGKILL");
    }
  });

  it("refuses runbound itself, a program outside the workdir and a pid that is gone", async () => {
    expect(await debug({ operation: "attach", pid: process.pid })).toMatch(
      /is runbound or the process that runs it; attach joins programs in the workdir only\.$/,
    );
    const outside = spawn("sleep", ["30"], { cwd: "/", stdio: "ignore" });
    children.push(outside);
    expect(await debug({ operation: "attach", pid: outside.pid })).toMatch(
      /^`sleep 30` \(pid \d+\) runs in \/, outside the workdir; attach joins only programs started in the workdir/,
    );
    expect(await debug({ operation: "attach", pid: 999_999_999 })).toMatch(
      /^No process 999999999 that runbound can see/,
    );
    expect(await debug({ operation: "attach", pid: 1, port: 5678 })).toBe(
      "attach takes `port` (a program's debug server) or `pid` (a running program), not both.",
    );
  });

  it("the debugger that runs on the host is never the project's own: a dlv in its node_modules/.bin is passed over", async () => {
    const bin = path.join(dir, "node_modules", ".bin");
    const mark = path.join(dir, "PWNED");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "dlv"), `#!/bin/sh\necho "dlv $*" >> "${mark}"\nexit 1\n`);
    chmodSync(path.join(bin, "dlv"), 0o755);
    try {
      const child = spawn(path.join(dir, "go/spin"), [], { cwd: dir, stdio: "ignore" });
      children.push(child);
      await new Promise((r) => setTimeout(r, 500));
      expect(await debug({ operation: "attach", pid: child.pid })).toMatch(
        new RegExp(`^Attached to .* with dlv at (?!${dir}).*attached to pid ${child.pid}`),
      );
      expect(await debug({ operation: "terminate" })).toMatch(/^Detached from /);
      expect(existsSync(mark)).toBe(false);
      child.kill("SIGKILL");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
