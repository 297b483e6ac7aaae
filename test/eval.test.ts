/** eval on real Jupyter kernels: ipykernel (runbound's environment) and runbound's JavaScript kernel on Node. */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createRun, defineTool, type LogEntry, type Run, stderrLogger } from "../src/index.js";
import { descendantsOf, isAlive } from "../src/proc/tree.js";
import type { RunLink } from "../src/run-link.js";
import type { ToolResult } from "../src/tool-result.js";
import { call, HOME, suiteWorkdir, textOf, track, treeOf, workdirWith } from "./helpers.js";

const label = "a cell for the eval tests";

/** The environment a kernel runs in: a confined kernel's sys.prefix is the run's layer over it, its site-packages after. */
const KERNEL_ENVIRONMENT =
  "import sys\nprint(next(p for p in sys.path if p.endswith('site-packages') and not p.startswith(sys.prefix + '/')).rsplit('/lib/', 1)[0])";

describe("eval on real kernels", () => {
  let run: Run;
  let client: RunLink;
  let workdir: string;
  let remove: () => Promise<void>;
  const cell = (code: string, extra: Record<string, unknown> = {}) =>
    call(client, "eval", { code, description: label, ...extra });

  beforeAll(async () => {
    ({ dir: workdir, remove } = await suiteWorkdir({ "data/notes.txt": "alpha\nbeta\n" }));
    run = await createRun({
      workdir,
      conversationId: "eval",
      lsp: false,
      // Cells may run; writes from inside a cell are refused, to prove tool() goes through the same gate.
      approver: async (request) =>
        request.tool === "eval"
          ? { allow: true }
          : { allow: false, reason: "writes are not allowed in this test" },
      kernels: { idleSeconds: 3, interruptGraceSeconds: 2 },
    });
    // A harness tool slower than the idle budget: the cell waiting on it through tool() is not idle.
    run.registerTool(
      defineTool({
        name: "slow_lookup",
        title: "slow lookup",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "answers after 4.5 s",
        input: { key: z.string() },
        output: { value: z.string() },
        run: async (args) => {
          await new Promise((r) => setTimeout(r, 4500));
          return { text: `value of ${args.key}`, structured: { value: `value of ${args.key}` } };
        },
      }),
    );
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  it("keeps state between cells and returns the last expression", async () => {
    expect(textOf(await cell("x = 21\nx * 2"))).toBe("42");
    const again = await cell("x + 1");
    expect(textOf(again)).toBe("22");
    expect(again.structuredContent).toMatchObject({ language: "python", status: "ok", output: "22\n" });
  });

  it("runs in the workdir, prints streams, and shows a pandas frame as a table", async () => {
    expect(textOf(await cell(`import os\nprint(os.getcwd() == ${JSON.stringify(workdir)})`))).toBe("True");
    const frame = await cell("import pandas as pd\npd.DataFrame({'a': range(3), 'b': list('xyz')})");
    expect(textOf(frame)).toBe("   a  b\n0  0  x\n1  1  y\n2  2  z");
  });

  it("returns a matplotlib figure as an image block", async () => {
    const plot = await cell("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()");
    expect(textOf(plot)).toContain("(1 image below)");
    const image = (plot as ToolResult).content.find((b) => b.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(
      Buffer.from((image as { data: string }).data, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
  });

  it("an exception is a clean traceback with the error's name", async () => {
    const failed = await cell("1/0");
    expect(failed.structuredContent).toMatchObject({
      status: "error",
      error: { name: "ZeroDivisionError", value: "division by zero" },
    });
    expect(textOf(failed)).toMatch(/ZeroDivisionError: division by zero$/);
    expect(textOf(failed)).not.toContain(String.fromCharCode(27));
  });

  it("IPython idioms work: !cmd, %%bash, %cd and %%timeit", async () => {
    expect(textOf(await cell("!echo from-shell"))).toBe("from-shell");
    expect(textOf(await cell("%%bash\necho from-bash"))).toBe("from-bash");
    expect(textOf(await cell("%cd data"))).toBe(path.join(workdir, "data"));
    expect(textOf(await cell("!ls"))).toBe("notes.txt");
    expect(textOf(await cell("%cd .."))).toBe(workdir);
    expect(textOf(await cell("%%timeit -n 3 -r 2\nsum(range(100))"))).toMatch(
      // (timeit may add a line before it: "The slowest run took 4.90 times longer than the fastest…"; its figures are
      // %.3g, so a mean of 999.6 ns reads "1e+03 ns")
      /(^|\n)[\d.]+(e\+\d+)? [µμnm]?s ± [\d.]+(e\+\d+)? [µμnm]?s per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)$/,
    );
  });

  it("tool() in a Python cell reads through the run's registry, and a refused write is an exception in the cell", async () => {
    expect(
      textOf(
        await cell(
          "r = tool('read', {'path': 'data/notes.txt'})\nprint(r['total_lines'], r['content'].split())",
        ),
      ),
    ).toBe("2 ['alpha', 'beta']");
    const refused = await cell("tool('write', {'path': 'data/new.txt', 'content': 'x'})");
    expect(textOf(refused)).toMatch(
      /RuntimeError: Not done: write needs approval on the full surface, and writes are not allowed in this test/,
    );
    expect(await treeOf(workdir)).toEqual({ "data/notes.txt": "alpha\nbeta\n" });
  });

  it("JavaScript cells run on runbound's Node kernel, with tool() too (a refused write is an exception there as well)", async () => {
    expect(textOf(await cell("const n = 6 * 7; n", { language: "javascript" }))).toBe("42");
    expect(
      textOf(
        await cell("(await tool('read', { path: 'data/notes.txt' })).total_lines", {
          language: "javascript",
        }),
      ),
    ).toBe("2");
    const refused = await cell("await tool('write', { path: 'data/new.txt', content: 'x' })", {
      language: "javascript",
    });
    expect(refused.structuredContent).toMatchObject({ status: "error" });
    expect(textOf(refused)).toContain(
      "Error: Not done: write needs approval on the full surface, and writes are not allowed in this test",
    );
    expect(await treeOf(workdir)).toEqual({ "data/notes.txt": "alpha\nbeta\n" });
  });

  it("a cell with no output for the idle budget is interrupted, and the kernel keeps its state", async () => {
    await cell("kept = 'still here'");
    const slow = await cell("import time\ntime.sleep(30)");
    expect(slow.structuredContent).toMatchObject({ status: "interrupted" });
    expect(textOf(slow)).toContain(
      "The cell was interrupted: no output within the idle budget. The kernel's state is kept.",
    );
    expect(textOf(await cell("kept"))).toBe("'still here'");
  });

  it("the idle clock stops while a tool() call runs, even one slower than the idle budget", async () => {
    const slow = await cell("r = tool('slow_lookup', {'key': 'k'})\nprint(r['value'])");
    expect(slow.structuredContent).toMatchObject({ status: "ok" });
    expect(textOf(slow)).toBe("value of k");
  });

  it("a cell that ignores the interrupt loses its kernel after the grace, and the next cell gets a fresh one", async () => {
    await cell("w = 1");
    const stuck = await cell(
      "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)",
    );
    expect(stuck.structuredContent).toMatchObject({ status: "died" });
    expect(textOf(stuck)).toBe(
      "The kernel was lost during the cell: it did not stop within 2 s of an interrupt, so runbound shut the kernel down. Its state (variables, imports) is lost; the next call starts a fresh kernel.",
    );
    expect(textOf(await cell("'w' in dir()"))).toBe("False");
  });

  it("a kernel that dies mid-cell is reported; the next cell gets a fresh kernel; reset discards state", async () => {
    await cell("y = 1");
    const died = await cell("import os\nos._exit(1)");
    expect(died.structuredContent).toMatchObject({ status: "died" });
    expect(textOf(died)).toContain(
      "The kernel died during the cell: its state (variables, imports) is lost.",
    );
    expect(textOf(await cell("'y' in dir()"))).toBe("False");
    await cell("z = 1");
    const reset = await cell("'z' in dir()", { reset: true });
    expect(textOf(reset)).toBe("(a fresh kernel: earlier state was discarded)\nFalse");
  });

  it("a lone UTF-16 surrogate in the code is refused at once, and the kernel keeps its state", async () => {
    await cell("kept = 41");
    const refused = await cell("print('\uD800')");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      '`code` contains a lone UTF-16 surrogate (U+D800 at character 8), which no kernel can be sent; write it as an escape in the code instead (Python "\\ud800", JavaScript "\\uD800").',
    );
    expect(textOf(await cell("kept + 1"))).toBe("42");
  });

  it("description must be 5-10 words", async () => {
    expect(textOf(await call(client, "eval", { code: "1", description: "too short" }))).toBe(
      '`description` has 2 words; give 5-10 words saying what the cell does, e.g. "load the sales table and count rows".',
    );
  });
});

describe("eval: long cells", () => {
  // The default idle budget: a quiet %pip install builds for longer than the 3 s the main suite uses.
  let longRun: Run | undefined;
  const longWorkdir = async () => {
    longRun ??= track(
      await createRun({
        workdir: await workdirWith(),
        conversationId: "long-pip",
        approver: "always",
        lsp: false,
      }),
    );
    return longRun.workdir;
  };
  const longCell = async (code: string) => {
    await longWorkdir();
    return call(await longRun!.link({ surface: "full" }), "eval", { code, description: label });
  };

  it("%pip evicts the modules of what it changed, so the next import sees the new version; a failed !cmd fails", async () => {
    // Inside the workdir: a confined kernel sees nothing else of /tmp.
    const pkg = async (version: number) => {
      const dir = path.join(await longWorkdir(), `pkg-${version}`);
      await mkdir(path.join(dir, "rbdemo_evict"), { recursive: true });
      await writeFile(
        path.join(dir, "pyproject.toml"),
        `[project]\nname = "rbdemo-evict"\nversion = "${version}.0"\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n`,
      );
      await writeFile(path.join(dir, "rbdemo_evict/__init__.py"), `VALUE = ${version}\n`);
      return dir;
    };
    const [one, two] = [await pkg(1), await pkg(2)];
    try {
      const first = await longCell(`%pip install -q --no-build-isolation ${one}`);
      expect(first.structuredContent, textOf(first)).toMatchObject({ status: "ok" });
      expect(textOf(await longCell("import rbdemo_evict\nrbdemo_evict.VALUE"))).toBe("1");
      const upgraded = await longCell(`%pip install -q --no-build-isolation ${two}`);
      expect(upgraded.structuredContent, textOf(upgraded)).toMatchObject({ status: "ok" });
      expect(textOf(upgraded)).toMatch(
        /\(evicted 1 loaded modules of rbdemo-evict: the next import loads what was installed\)/,
      );
      expect(textOf(await longCell("import rbdemo_evict\nrbdemo_evict.VALUE"))).toBe("2");
      const failed = await longCell("!false");
      expect(failed.structuredContent).toMatchObject({
        status: "error",
        error: { name: "RuntimeError", value: "shell command failed with exit code 1: false" },
      });
    } finally {
      await longCell("%pip uninstall -q -y rbdemo-evict");
    }
  });

  it("!pip, !python and subprocess are the kernel's environment's; !pip install is importable in the next cell", async () => {
    longRun = undefined; // the last test's run was disposed after it
    const dir = path.join(await longWorkdir(), "pkg-shell");
    await mkdir(path.join(dir, "rbdemo_shell"), { recursive: true });
    await writeFile(
      path.join(dir, "pyproject.toml"),
      '[project]\nname = "rbdemo-shell"\nversion = "1.0"\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
    );
    await writeFile(path.join(dir, "rbdemo_shell/__init__.py"), "VALUE = 'shell'\n");
    const same = await longCell(
      [
        "import os, shutil, subprocess, sys",
        "pip = shutil.which('pip')",
        "python = subprocess.run(['python', '-c', 'import sys; print(sys.prefix)'], capture_output=True, text=True).stdout.strip()",
        "print(os.path.dirname(pip) == os.path.dirname(sys.executable), python == sys.prefix)",
      ].join("\n"),
    );
    expect(textOf(same)).toBe("True True");
    try {
      const installed = await longCell(`!pip install -q --no-build-isolation ${dir}`);
      expect(installed.structuredContent, textOf(installed)).toMatchObject({ status: "ok" });
      expect(textOf(await longCell("import rbdemo_shell\nrbdemo_shell.VALUE"))).toBe("'shell'");
    } finally {
      await longCell("%pip uninstall -q -y rbdemo-shell");
    }
  });

  it.each([
    ["confined", "preferred"],
    ["host", "off"],
  ] as const)(
    "pip in a %s kernel on runbound's environment: what it has is already satisfied; a new version goes to the run's layer, shadows the environment's and leaves it as it was",
    async (kind, confine) => {
      const workdir = await workdirWith();
      const pipRun = track(
        await createRun({ workdir, conversationId: `pip-${kind}`, approver: "always", lsp: false, confine }),
      );
      expect(pipRun.processes.confinedPlace.kind).toBe(kind);
      const pipClient = await pipRun.link({ surface: "full" });
      const longCell = (code: string) => call(pipClient, "eval", { code, description: label });
      const site = readdirSync(path.join(HOME.venv, "lib"))
        .filter((n) => n.startsWith("python3"))
        .map((n) => path.join(HOME.venv, "lib", n, "site-packages"))[0]!;
      const sixBefore = readdirSync(site).filter((n) => /^six-.*\.dist-info$/.test(n));
      expect(sixBefore).toHaveLength(1);
      const dir = path.join(workdir, "six-local");
      await mkdir(dir);
      await writeFile(
        path.join(dir, "pyproject.toml"),
        '[project]\nname = "six"\nversion = "99.0"\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[tool.setuptools]\npy-modules = ["six"]\n',
      );
      await writeFile(path.join(dir, "six.py"), "__version__ = 'the run'\n");
      for (const code of ["!pip install numpy", "%pip install numpy"]) {
        const satisfied = await longCell(code);
        expect(satisfied.structuredContent, textOf(satisfied)).toMatchObject({ status: "ok" });
        expect(textOf(satisfied), code).toContain(`Requirement already satisfied: numpy in ${site}`);
        expect(textOf(satisfied), code).not.toMatch(/Downloading|Installing collected/);
      }
      expect(textOf(await longCell("import numpy\nnumpy.__file__"))).toBe(`'${site}/numpy/__init__.py'`);
      expect(textOf(await longCell("import six\nsix.__version__"))).not.toBe("'the run'");
      const shadowing = await longCell(`%pip install --no-build-isolation ${dir}`);
      expect(shadowing.structuredContent, textOf(shadowing)).toMatchObject({ status: "ok" });
      expect(textOf(shadowing)).toMatch(/Not uninstalling six at .*, outside environment/);
      expect(textOf(shadowing)).toContain("(evicted 1 loaded modules of six");
      expect(textOf(await longCell("import six\nsix.__version__"))).toBe("'the run'");
      // !python is the same layered interpreter; the environment's own copy is untouched.
      expect(textOf(await longCell("!python -c 'import six; print(six.__version__)'"))).toBe("the run");
      expect(readdirSync(site).filter((n) => /^six-.*\.dist-info$/.test(n))).toEqual(sixBefore);
      const removed = await longCell("!pip uninstall -y six");
      expect(textOf(removed)).toContain("Successfully uninstalled six-99.0");
      expect(textOf(await longCell("import six\nsix.__file__"))).toBe(`'${site}/six.py'`);
      // The layer lasts as long as the run.
      const layer = JSON.parse(textOf(await longCell("import sys, json\nprint(json.dumps(sys.prefix))")));
      expect(existsSync(path.join(layer, "pyvenv.cfg"))).toBe(true);
      await pipRun.dispose();
      expect(existsSync(layer)).toBe(false);
    },
  );

  it("a long cell sends progress notifications, so a client does not give up on it", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "long", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const seen: string[] = [];
    const result = await client.callTool(
      { name: "eval", arguments: { code: "import time\ntime.sleep(6)\n'slept'", description: label } },
      {
        onprogress: (p) => seen.push(p.message ?? ""),
        timeout: 60_000,
      },
    );
    expect(textOf(result as ToolResult)).toBe("'slept'");
    expect(seen[0]).toMatch(/^cell running for \d+ s$/);
  });
});

describe("eval: where kernels run", () => {
  it("inside the sandbox when it is up (its command prefix), on the host when it is not; never booting it", async () => {
    const check = "import os\nos.environ.get('RUNBOUND_SANDBOXED')";
    for (const up of [true, false]) {
      const sandbox = {
        isUp: () => up,
        commandPrefix: () => ["env", "RUNBOUND_SANDBOXED=yes"],
        start: () => {
          throw new Error("runbound must not boot the sandbox");
        },
      };
      const workdir = await workdirWith();
      const run = track(
        await createRun({
          workdir,
          conversationId: `sb-${up}`,
          approver: "always",
          lsp: false,
          kernels: { sandbox },
        }),
      );
      const result = await call(await run.link({ surface: "full" }), "eval", {
        code: check,
        description: label,
      });
      expect(textOf(result)).toBe(up ? "'yes'" : "(no output)");
    }
  });

  it("a project environment without ipykernel: the first cell says the kernel runs in runbound's, and how to change it", async () => {
    const workdir = await workdirWith({ "pyproject.toml": "" });
    // A real environment of the project's, without ipykernel (and without pip: nothing to install here).
    execFileSync("python3", ["-m", "venv", "--without-pip", path.join(workdir, ".venv")]);
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const cell = (code: string) =>
      call(client, "eval", { code, description: "check which interpreter runs this cell" });
    const first = textOf(await cell(KERNEL_ENVIRONMENT));
    expect(first).toContain(
      "(this kernel runs in runbound's Python environment, not in the project's .venv: it has no ipykernel, so the project's packages are not importable here. To run cells in the project's environment: ",
    );
    expect(first).toContain(
      `${path.join(workdir, ".venv", "bin", "python")} -m pip install ipykernel, then eval with reset: true)`,
    );
    expect(first.split("\n").at(-1)).toBe(HOME.venv);
    // Said once: the next cell of the same kernel answers plainly.
    expect(textOf(await cell("print(1 + 1)"))).toBe("2");
    // The project gets an environment with ipykernel (runbound's own, linked in): a reset moves the kernel there.
    rmSync(path.join(workdir, ".venv"), { recursive: true });
    symlinkSync(HOME.venv, path.join(workdir, ".venv"));
    const reset = await call(client, "eval", {
      code: KERNEL_ENVIRONMENT,
      description: "check which interpreter runs this cell",
      reset: true,
    });
    expect(textOf(reset)).toBe(
      `(a fresh kernel: earlier state was discarded)\n${path.join(workdir, ".venv")}`,
    );
  });

  /** A Jupyter server as a harness would run it (its own process group, so its kernels can be killed with it). */
  async function harnessServer(workdir: string) {
    const token = "harness-token-0123456789";
    const python = HOME.python;
    const server = spawn(
      python,
      [
        "-m",
        "jupyter_server",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port=0",
        `--IdentityProvider.token=${token}`,
        `--ServerApp.root_dir=${workdir}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"], detached: true },
    );
    const url = await new Promise<string>((resolve) => {
      let seen = "";
      server.stderr.on("data", (d: Buffer) => {
        seen += d.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen);
        if (m) resolve(m[1]!);
      });
    });
    // jupyter_server prints its URL before it listens; a harness hands it over once it answers.
    await expect
      .poll(() =>
        fetch(`${url}api/status?token=${token}`).then(
          (r) => r.ok,
          () => false,
        ),
      )
      .toBe(true);
    return { server, url, token, killAll: () => process.kill(-server.pid!, "SIGKILL") };
  }

  it("a harness's server that dies mid-cell: the cell ends as lost once the kernel cannot be reached", async () => {
    const workdir = await workdirWith();
    const { url, token, killAll } = await harnessServer(workdir);
    try {
      const run = track(
        await createRun({
          workdir,
          approver: "always",
          lsp: false,
          kernels: { server: { url, token }, idleSeconds: 2, interruptGraceSeconds: 2 },
        }),
      );
      const client = await run.link({ surface: "full" });
      expect(textOf(await call(client, "eval", { code: "x = 1\nx", description: label }))).toBe("1");
      const inFlight = call(client, "eval", { code: "import time\ntime.sleep(60)", description: label });
      await new Promise((r) => setTimeout(r, 1000));
      killAll();
      const lost = await inFlight;
      expect(lost.structuredContent).toMatchObject({ status: "died" });
      expect(textOf(lost)).toMatch(
        /^The kernel was lost during the cell: (the kernel could not be reached to interrupt it|the connection to the kernel was lost)/,
      );
      // The harness's server stays down: said, with whose it is and what to do.
      expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toMatch(
        new RegExp(
          `^The Jupyter server the harness gave \\(${url.replace(/[.]/g, "\\.")}\\) could not start a python3 kernel: .*If that server is down, start it again`,
        ),
      );
    } finally {
      try {
        killAll();
      } catch {}
    }
  });

  it("on a Jupyter server the harness runs, which outlives the run", async () => {
    const workdir = await workdirWith();
    const { server, url, token, killAll } = await harnessServer(workdir);
    try {
      const run = await createRun({
        workdir,
        conversationId: "ext",
        approver: "always",
        lsp: false,
        kernels: { server: { url, token } },
      });
      expect(
        textOf(
          await call(await run.link({ surface: "full" }), "eval", { code: "6 * 7", description: label }),
        ),
      ).toBe("42");
      await run.dispose();
      expect(await isAlive(server.pid!)).toBe(true);
    } finally {
      killAll();
    }
  });
});

describe("eval: lifecycle", () => {
  it("is exec-tier and nothing is left running after dispose", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "life", approver: "always", lsp: false }));
    expect(run.tools("plan")).not.toContain("eval");
    const client = await run.link({ surface: "full" });
    await call(client, "eval", { code: "1 + 1", description: label });
    // The Jupyter server is shared by the host's runs (it stops with the last): this run's are the processes
    // under it in this run's workdir (its kernel, in and around its sandbox).
    const server = run.resource("kernels")!.serverPid!;
    const kernels = (await descendantsOf(server)).filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(workdir);
      } catch {
        return false;
      }
    });
    const pids = [...kernels, ...run.processes.running().map((p) => p.pid)];
    expect(kernels.length).toBeGreaterThan(0);
    await run.dispose();
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
  });
});

describe("eval: what another user of the host can read", () => {
  it("no process's command line carries the server's token; its config and the kernels' keys are the owner's only", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toBe("2");
    const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const server = { pid: run.resource("kernels")!.serverPid! };
    const config = cmdline(server.pid)
      .find((a) => a.startsWith("--config="))!
      .slice("--config=".length);
    const token = /c\.IdentityProvider\.token = "([0-9a-f]+)"/.exec(readFileSync(config, "utf8"))?.[1];
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    // /proc/<pid>/cmdline is world-readable: neither the server nor any process under it may carry the token.
    for (const pid of [server.pid, ...(await descendantsOf(server.pid))])
      expect(cmdline(pid).join(" "), `pid ${pid}`).not.toContain(token!);
    const folder = path.dirname(config);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    // Each kernel's keys are in its connection file, which its command line names (in the run's own folder).
    const keys = (await descendantsOf(server.pid))
      .map((pid) => cmdline(pid))
      .filter(
        (argv) => argv.includes("ipykernel_launcher") || argv.some((a) => a.endsWith("/kernel-launch.py")),
      )
      .map((argv) => argv[argv.indexOf("-f") + 1]!);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(path.basename(key)).toMatch(/^kernel-.*\.json$/);
      expect(statSync(key).mode & 0o777, key).toBe(0o600);
      expect(statSync(path.dirname(key)).mode & 0o777, key).toBe(0o700);
    }
  });
});

describe("eval: what a killed host leaves behind", () => {
  it("the next server sweeps the private folders of servers whose host is gone, and only those", async () => {
    const dead = spawnSync("true").pid!; // exited: its pid names no process now
    const stale = mkdtempSync(path.join(tmpdir(), "runbound-jupyter-"));
    writeFileSync(path.join(stale, "owner"), `${dead}\n`);
    const live = mkdtempSync(path.join(tmpdir(), "runbound-jupyter-"));
    writeFileSync(path.join(live, "owner"), `${process.pid}\n`);
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toBe("2");
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live, { recursive: true });
  });
});

describe("eval: the host's console", () => {
  it("gets none of the kernel library's connection chatter; other console.debug lines still pass", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    try {
      const workdir = await workdirWith();
      const run = track(await createRun({ workdir, approver: "always", lsp: false }));
      const client = await run.link({ surface: "full" });
      expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toBe("2");
      await run.dispose();
      console.debug("the host's own line");
      expect(debug.mock.calls).toEqual([["the host's own line"]]);
    } finally {
      debug.mockRestore();
    }
  });

  it("a harness tool reached through tool() keeps its console lines (they are not the kernel library's)", async () => {
    const entries: LogEntry[] = [];
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const workdir = await workdirWith();
      const run = track(
        await createRun({ workdir, approver: "always", lsp: false, logger: (entry) => entries.push(entry) }),
      );
      run.registerTool(
        defineTool({
          name: "shout",
          title: "shout",
          tier: "read",
          needs: [],
          parallelSafe: true,
          description: "logs a line and answers",
          input: {},
          output: { ok: z.boolean() },
          run: async () => {
            console.log("the harness tool's own line");
            return { text: "shouted", structured: { ok: true } };
          },
        }),
      );
      const client = await run.link({ surface: "full" });
      expect(
        textOf(await call(client, "eval", { code: "print(tool('shout')['text'])", description: label })),
      ).toBe("shouted");
      expect(log.mock.calls).toContainEqual(["the harness tool's own line"]);
      expect(entries.map((e) => e.message)).not.toContain("the harness tool's own line");
    } finally {
      log.mockRestore();
    }
  });
});

describe("eval: the Jupyter server dies under the run", () => {
  it("a cell in flight says so, the next cell gets a new server; lost state is told once; the library's lines reach the run's logger only", async () => {
    const entries: LogEntry[] = [];
    const spies = (["debug", "log", "info", "warn", "error"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      const workdir = await workdirWith();
      const run = track(
        await createRun({ workdir, approver: "always", lsp: false, logger: (entry) => entries.push(entry) }),
      );
      const client = await run.link({ surface: "full" });
      const cell = (code: string) => call(client, "eval", { code, description: label });
      const killServer = () => {
        const pid = run.resource("kernels")!.serverPid;
        if (pid) process.kill(pid, "SIGKILL");
      };
      const noticed = async (count: number) => {
        for (let i = 0; i < 200; i++) {
          if (entries.filter((e) => /Jupyter server exited/.test(e.message)).length >= count) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error("the server's exit was never noticed");
      };

      expect(textOf(await cell("x = 41\nx + 1"))).toBe("42");
      const inFlight = cell("import time\ntime.sleep(60)");
      await new Promise((r) => setTimeout(r, 1500));
      killServer();
      const died = await inFlight;
      expect(died.structuredContent).toMatchObject({ status: "died" });
      expect(textOf(died)).toContain(
        "The kernel was lost during the cell: the Jupyter server exited. Its state (variables, imports) is lost",
      );
      // Already told: the next answer is a plain NameError, with no second notice.
      const after = textOf(await cell("x"));
      expect(after).toContain("NameError");
      expect(after).not.toContain("fresh kernel");

      expect(textOf(await cell("y = 1\ny"))).toBe("1");
      killServer();
      await noticed(2);
      const told = textOf(await cell("1 + 1"));
      expect(told).toBe(
        "(a fresh kernel: the Jupyter server exited since the last cell, so earlier state is lost)\n2",
      );

      // The library's own lines (its WebSocket's start, and when it gets there first its "Connection lost,
      // reconnecting" warning: under load the run can close the connection before the library tries) reach the
      // run's logger, at their levels, and nothing reaches the console.
      expect(entries).toContainEqual({
        level: "debug",
        source: "eval",
        message: expect.stringMatching(
          /^Starting WebSocket: ws:\/\/(127\.0\.0\.1:\d+|localhost)\/api\/kernels\//,
        ),
      });
      for (const entry of entries.filter((e) => /^Connection lost, reconnecting/.test(e.message)))
        expect(entry).toMatchObject({ level: "warn", source: "eval" });
      await run.dispose();
      for (const spy of spies) expect(spy.mock.calls).toEqual([]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("a harness logger that itself writes with console.log gets the library's lines once, on the console", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const workdir = await workdirWith();
      const run = track(
        await createRun({
          workdir,
          approver: "always",
          lsp: false,
          logger: (entry) => console.log(`[${entry.level}] ${entry.message}`),
        }),
      );
      const text = textOf(
        await call(await run.link({ surface: "full" }), "eval", { code: "1 + 1", description: label }),
      );
      expect(text).toBe("2");
      const lines = log.mock.calls.map((c) => String(c[0]));
      expect(lines.some((l) => /^\[debug\] Starting WebSocket: /.test(l))).toBe(true);
      expect(lines.filter((l) => l.startsWith("[debug] [debug]"))).toEqual([]);
    } finally {
      log.mockRestore();
    }
  });

  it("without a logger, warnings go to stderr as one prefixed line; debug lines are dropped", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      stderrLogger({ level: "debug", source: "eval", message: "Kernel: idle" });
      stderrLogger({ level: "warn", source: "eval", message: "Connection lost, reconnecting in 0 seconds." });
      expect(write.mock.calls).toEqual([
        ["runbound eval warn: Connection lost, reconnecting in 0 seconds.\n"],
      ]);
    } finally {
      write.mockRestore();
    }
  });
});
