/**
 * The container place against a real container: Debian's podman running the host's root filesystem as an overlay
 * (`--rootfs /:O`, no image registry needed), with the workdir at /workspace and runbound's home at /opt/runbound —
 * other paths than on the host, which the container does not see (tmpfs over /tmp and over runbound's home), so a
 * path that is not translated fails. runbound never starts or stops the container.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandBackend, createRun, type Run } from "../src/index.js";
import { CONTAINERS_CONF, podman, podmanAvailable, ROOT, startBox } from "./container-box.js";
import { call, FORK_BOMB, HOME, PY_ATTEMPT, suiteWorkdir, textOf, track } from "./helpers.js";

const label = "a cell inside the conversation's container";

describe.skipIf(!podmanAvailable)("the container place: processes run inside, paths are mapped", () => {
  const name = `runbound-test-${process.pid}`;
  let workdir = "";
  let scratch = "";
  let remove = async () => {};
  let run: Run;
  const inside = (script: string) => podman(["exec", "-i", name, "sh", "-c", script]).stdout;
  /** The container as the runs here are given it: the workdir, runbound's home and the scratch folder mapped. */
  const box = () => ({
    exec: ["podman", "exec", "-i", name],
    paths: { [workdir]: "/workspace", [HOME.home]: "/opt/runbound", [scratch]: "/scratch" },
    scratch,
  });

  beforeAll(async () => {
    ({ dir: workdir, remove } = await suiteWorkdir({
      "data.txt": "alpha\nbeta\n",
      "pyproject.toml": "",
      "app.py": "import os\nwhere = os.getcwd()\nprint(where)\n",
      "lib.py": "def greet(name):\n    return name\n",
      "main.py": "from lib import greet\ngreet('x')\n",
    }));
    scratch = mkdtempSync(path.join(tmpdir(), "runbound-container-scratch-"));
    // runbound's own servers (pyright) where the checkout is, which may be under the hidden /tmp.
    const started = startBox(name, workdir, scratch, ["--network", "host", "-v", `${ROOT}:${ROOT}:ro`]);
    expect(started.status, started.stderr).toBe(0);
    expect(inside(`ls ${workdir} 2>&1; ls /workspace`)).toMatch(/No such file[\s\S]*data\.txt/);
    process.env.CONTAINERS_CONF = CONTAINERS_CONF;
    run = await createRun({
      workdir,
      conversationId: "container",
      approver: "always",
      lsp: false,
      container: box(),
      vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; pwd; cat data.txt"]) },
    });
  });
  afterAll(async () => {
    await run?.dispose();
    podman(["rm", "-f", "-t", "0", name]);
    rmSync(scratch, { recursive: true, force: true });
    await remove();
  });

  it("a cell runs in the container's /workspace, reads the workdir there, and tool() reaches the run's tools", async () => {
    expect(run.processes.confinedPlace.description).toContain(`in the container (podman exec -i ${name})`);
    const client = await run.link({ surface: "full" });
    const where = await call(client, "eval", {
      code: "import os, sys\nprint(os.getcwd(), sys.prefix, [p for p in sys.path if 'runbound/python' in p], open('data.txt').read().split()[0])",
      description: label,
    });
    // runbound's environment by the container's path, under the run's own layer (where %pip installs) in /scratch.
    expect(textOf(where)).toMatch(
      /^\/workspace \/scratch\/runbound-place-\w+\/python-\w+ \['\/opt\/runbound\/python\/lib\/python3\.\d+\/site-packages'\] alpha$/,
    );
    expect(inside("ps -eo args")).toMatch(/jupyter_server/);
    const bridged = await call(client, "eval", {
      code: "print(tool('read', {'path': 'data.txt'})['text'])",
      description: label,
    });
    expect(textOf(bridged)).toBe("data.txt (2 lines)\n1\talpha\n2\tbeta");
  });

  it("a JavaScript cell runs there too (runbound's kernel on the harness's Node, by the container's path)", async () => {
    const client = await run.link({ surface: "full" });
    const cell = await call(client, "eval", {
      code: "console.log(process.cwd(), (await tool('read', { path: 'data.txt' })).text.split('\\n')[0])",
      language: "javascript",
      description: label,
    });
    expect(textOf(cell)).toBe("/workspace data.txt (2 lines)");
    expect(inside("ps -eo args")).toMatch(/kernels\/node\/kernel\.[jt]s --zeromq/);
  });

  it("a debug session inside: a breakpoint set by the host's path stops the program at /workspace, said relative", async () => {
    const client = await run.link({ surface: "full" });
    await call(client, "debug", { operation: "breakpoints", file: "app.py", lines: [3] });
    const stopped = textOf(await call(client, "debug", { operation: "launch", program: "app.py" }));
    expect(stopped).toMatch(/app\.py:3/);
    expect(stopped).toContain("where = '/workspace'");
    expect(stopped).not.toContain(workdir);
    expect(inside("ps -eo args")).toMatch(/debugpy/);
    await call(client, "debug", { operation: "terminate" });
  });

  it("language servers run inside: definition, references and a rename across files, by the host's paths", async () => {
    const withLsp = track(
      await createRun({
        workdir,
        approver: "always",
        kernels: false,
        container: box(),
      }),
    );
    const client = await withLsp.link({ surface: "full" });
    const definition = textOf(
      await call(client, "lsp", { action: "definition", file: "main.py", line: 2, symbol: "greet" }),
    );
    expect(definition).toBe("lib.py:1  def greet(name):");
    expect(definition).not.toContain("/workspace");
    const references = textOf(
      await call(client, "lsp", { action: "references", file: "lib.py", line: 1, symbol: "greet" }),
    );
    expect(references).toMatch(/^3 references in 2 files:\n/);
    expect(references).toMatch(/main\.py/);
    expect(inside("ps -eo args")).toMatch(/pyright/);
    const status = textOf(await call(client, "lsp", { action: "status" }));
    expect(status).toMatch(/pyright @ \.: ready, pid \d+, in the container/);
    expect(status).toMatch(new RegExp(`^Servers run in the container \\(podman exec -i ${name}\\)`, "m"));
    const renamed = await call(client, "lsp_rename", {
      file: "lib.py",
      line: 1,
      symbol: "greet",
      new_name: "welcome",
    });
    expect(renamed.isError, textOf(renamed)).toBeFalsy();
    expect(readFileSync(path.join(workdir, "main.py"), "utf8")).toBe(
      "from lib import welcome\nwelcome('x')\n",
    );
    expect(readFileSync(path.join(workdir, "lib.py"), "utf8")).toContain("def welcome(name)");
  });

  it("a command worker runs there too", async () => {
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "where are you", label: "where" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect((waited.structuredContent as { worker: { result: string } }).worker.result).toBe(
      "/workspace\nalpha\nbeta",
    );
  });

  it("dispose leaves nothing runbound started in the container", async () => {
    const other = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: false,
        container: box(),
      }),
    );
    await call(await other.link({ surface: "full" }), "eval", { code: "1 + 1", description: label });
    const before = inside("ps -eo args")
      .split("\n")
      .filter((l) => l.includes("jupyter_server")).length;
    await other.dispose();
    const after = inside("ps -eo args")
      .split("\n")
      .filter((l) => l.includes("jupyter_server")).length;
    expect(after).toBe(before - 1);
  });

  it("a container that is down is said to be down, and runbound does not start it", async () => {
    const gone = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: false,
        container: {
          exec: ["podman", "exec", "-i", `${name}-absent`],
          paths: { [workdir]: "/workspace", [scratch]: "/scratch" },
          scratch,
        },
      }),
    );
    const cell = await call(await gone.link({ surface: "full" }), "eval", { code: "1", description: label });
    expect(cell.isError).toBe(true);
    expect(textOf(cell)).toMatch(
      new RegExp(
        `the conversation's container does not answer \`podman exec -i ${name}-absent true\` \\(.*no such container.*\\); runbound never starts it: start it, then call again`,
        "i",
      ),
    );
    expect(
      execFileSync("podman", ["ps", "-a", "--format", "{{.Names}}"], { encoding: "utf8" }),
    ).not.toContain(`${name}-absent`);
  });
});

describe.skipIf(!podmanAvailable)("the container place, tried as an attacker would", () => {
  // The harness's container: no network, its own home (the toolchain read-only), process and memory limits.
  const name = `runbound-test-iso-${process.pid}`;
  const token = `${process.pid}`;
  const canary = path.join(homedir(), `.runbound-container-canary-${token}`);
  const outside = path.join(homedir(), `runbound-container-wrote-${token}`);
  let workdir = "";
  let scratch = "";
  let remove = async () => {};
  let run: Run;
  let server: Server;
  let port = 0;
  const ATTACK = `import os, socket
${PY_ATTEMPT}attempt("canary", lambda: open(${JSON.stringify(canary)}).read().strip())
attempt("secret", lambda: os.environ["RUNBOUND_TEST_API_KEY"])
open(${JSON.stringify(outside)}, "w").write("x")
attempt("loopback", lambda: socket.create_connection(("127.0.0.1", PORT), timeout=3) and "connected")
`;

  beforeAll(async () => {
    writeFileSync(canary, "SECRET-CANARY\n");
    process.env.RUNBOUND_TEST_API_KEY = "sk-container-secret";
    server = createServer((socket) => socket.end("hello\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
    ({ dir: workdir, remove } = await suiteWorkdir({
      "pyproject.toml": "",
      "attack.py": ATTACK.replace("PORT", String(port)),
    }));
    scratch = mkdtempSync(path.join(tmpdir(), "runbound-container-scratch-"));
    const pyenv = process.env.PYENV_ROOT ?? path.join(homedir(), ".pyenv");
    const started = startBox(
      name,
      workdir,
      scratch,
      [
        ...["--network", "none", "--pids-limit", "200", "--memory", "1g", "--memory-swap", "1g"],
        ...["--mount", `type=tmpfs,destination=${homedir()},notmpcopyup`, "-v", `${pyenv}:${pyenv}:ro`],
      ],
      "ro",
    );
    expect(started.status, started.stderr).toBe(0);
    run = await createRun({
      workdir,
      conversationId: "container-attacks",
      approver: "always",
      lsp: false,
      container: {
        exec: ["podman", "exec", "-i", name],
        paths: { [workdir]: "/workspace", [HOME.home]: "/opt/runbound", [scratch]: "/scratch" },
        scratch,
        loopback: false,
      },
      vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; python3 attack.py"]) },
    });
  });
  afterAll(async () => {
    await run?.dispose();
    podman(["rm", "-f", "-t", "0", name]);
    server.close();
    delete process.env.RUNBOUND_TEST_API_KEY;
    for (const file of [canary, outside]) rmSync(file, { force: true });
    rmSync(scratch, { recursive: true, force: true });
    await remove();
  });

  const expectHeld = (text: string, what: string) => {
    for (const name of ["canary", "secret", "loopback"])
      expect(text, `${what}: ${name}`).toMatch(new RegExp(`^${name} refused`, "m"));
    expect(existsSync(outside), `${what}: a write outside the workdir reached the host`).toBe(false);
  };

  it("a cell, a debuggee and a worker: no canary, no secret, no write reaching the host, no loopback", async () => {
    const client = await run.link({ surface: "full" });
    const cell = await call(client, "eval", { code: 'exec(open("attack.py").read())', description: label });
    expectHeld(textOf(cell), "cell");
    const launched = await call(client, "debug", { operation: "launch", program: "attack.py" });
    expect(textOf(launched), textOf(launched)).not.toMatch(/could not|failed/i);
    expectHeld(textOf(await call(client, "debug", { operation: "output" })), "debuggee");
    await call(client, "vibe_spawn", { brief: "attack", label: "attack" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
    expectHeld((waited.structuredContent as { worker: { result: string } }).worker.result, "worker");
  });

  it("a fork bomb and a memory bomb meet the container's limits; the run keeps answering", async () => {
    const client = await run.link({ surface: "full" });
    const bomb = await call(client, "eval", {
      code: FORK_BOMB,
      description: label,
    });
    expect(textOf(bomb)).toMatch(/^refused after \d+ BlockingIOError$/);
    const memory = await call(client, "eval", {
      code: "x = bytearray(3 * 1024**3)\nlen(x)",
      description: label,
    });
    expect(textOf(memory)).toMatch(/MemoryError|lost|died/);
    expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toBe("2");
  });
});
