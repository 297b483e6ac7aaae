/**
 * Every language server and delve inside the conversation's container, as places-container.test.ts runs pyright and
 * debugpy there: a real podman container over the host's root filesystem with the workdir at /workspace and
 * runbound's home at /opt/runbound, the host's paths hidden, and the toolchains (Go, cargo) on the container's own
 * PATH as an image would have them — the container keeps its PATH; runbound passes only its own variables.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContainerOptions, createRun, type Run } from "../src/index.js";
import { CONTAINERS_CONF, podman, podmanAvailable, ROOT, startBox } from "./container-box.js";
import { call, HOME, textOf, track, workspaceCopy } from "./helpers.js";

/** Where this machine's toolchains are: the container's PATH is given them, as an image's would be. */
const TOOLCHAINS = ["go", "cargo"].map((tool) =>
  path.dirname(spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim()),
);

describe.skipIf(!podmanAvailable)("every language server and delve inside the container", () => {
  const name = `runbound-test-servers-${process.pid}`;
  let workdir = "";
  let scratch = "";
  let remove = async () => {};
  let run: Run;
  const inside = (script: string) => podman(["exec", "-i", name, "sh", "-c", script]).stdout;
  const box = (exec = ["podman", "exec", "-i", name]): ContainerOptions => ({
    exec,
    paths: { [workdir]: "/workspace", [HOME.home]: "/opt/runbound", [scratch]: "/scratch" },
    scratch,
  });
  const lsp = async (args: Record<string, unknown>) =>
    textOf(await call(await run.link({ surface: "full" }), "lsp", args));

  beforeAll(async () => {
    ({ dir: workdir, remove } = await workspaceCopy());
    scratch = mkdtempSync(path.join(tmpdir(), "runbound-container-scratch-"));
    const started = startBox(name, workdir, scratch, [
      ...["--network", "host", "-v", `${ROOT}:${ROOT}:ro`],
      ...[
        "-e",
        `PATH=${[...TOOLCHAINS, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"].join(":")}`,
      ],
    ]);
    expect(started.status, started.stderr).toBe(0);
    expect(inside(`ls ${workdir} 2>&1; ls /workspace`)).toMatch(/No such file[\s\S]*go/);
    process.env.CONTAINERS_CONF = CONTAINERS_CONF;
    run = await createRun({
      workdir,
      conversationId: "container-servers",
      approver: "always",
      kernels: false,
      container: box(),
    });
  }, 120_000);
  afterAll(async () => {
    await run?.dispose();
    podman(["rm", "-f", "-t", "0", name]);
    rmSync(scratch, { recursive: true, force: true });
    await remove();
  });

  it("gopls: definition, references and callers across files, by the host's paths", async () => {
    expect(await lsp({ action: "definition", file: "go/main.go", line: 7, symbol: "stock.Add" })).toMatch(
      /^go\/stock\.go:20 {2}func \(s \*Stock\) Add\(item Item, count int\) \{/,
    );
    expect(await lsp({ action: "references", file: "go/stock.go", line: 20, symbol: "Add" })).toMatch(
      /^2 references in 2 files:\n/,
    );
    expect(await lsp({ action: "call_hierarchy", file: "go/stock.go", line: 20, symbol: "Add" })).toMatch(
      /^Callers of `Add` \(function, go\/stock\.go:20\): 1 caller, 1 call site\n {2}main \(function\) go\/main\.go:5\n/,
    );
    expect(inside("ps -eo args")).toMatch(/^\/opt\/runbound\/go\/bin\/gopls/m);
  });

  it("tsgo: definition and references", async () => {
    expect(await lsp({ action: "definition", file: "ts/src/main.ts", line: 4, symbol: "stock.add" })).toBe(
      "ts/src/stock.ts:11  add(item: Item, count = 1): void {",
    );
    expect(await lsp({ action: "references", file: "ts/src/stock.ts", line: 11, symbol: "add" })).toMatch(
      /^2 references in 2 files:\n/,
    );
    expect(inside("ps -eo args")).toMatch(/typescript-linux-x64\/lib\/tsc --lsp/);
  });

  it("rust-analyzer and clangd: a definition and a function's callers", async () => {
    expect(
      await lsp({ action: "definition", file: "rust/src/main.rs", line: 36, symbol: "stock.add" }),
    ).toMatch(/^rust\/src\/main\.rs:15 {2}fn add\(&mut self, sku: &str, item: Item, count: u64\) \{/);
    expect(await lsp({ action: "call_hierarchy", file: "c/stock.c", line: 15, symbol: "add" })).toMatch(
      /^Callers of `add` \(function, c\/stock\.c:15\): 1 caller, 2 call sites\n {2}main \(function\) c\/stock\.c:34 — 2 calls\n/,
    );
    const status = await lsp({ action: "status" });
    for (const server of ["gopls @ go", "tsgo @ ts", "rust-analyzer @ rust", "clangd @ c"])
      expect(status).toMatch(new RegExp(`^ {2}${server}: ready, pid \\d+, in the container$`, "m"));
    expect(inside("ps -eo args")).toMatch(/rust-analyzer[\s\S]*clangd/);
  });

  it("delve: a breakpoint set by the host's path stops the program inside, locals and a step included", async () => {
    const client = await run.link({ surface: "full" });
    await call(client, "debug", { operation: "breakpoints", file: "go/stock.go", lines: [21] });
    const stopped = textOf(await call(client, "debug", { operation: "launch", program: "go" }));
    expect(stopped).toMatch(
      /Stopped \(breakpoint\) in thread \d+ at go\/stock\.go:21 in main\.\(\*Stock\)\.Add/,
    );
    expect(stopped).toContain("count = 3");
    expect(stopped).not.toContain("/workspace");
    expect(inside("ps -eo args")).toMatch(/dlv/);
    expect(textOf(await call(client, "debug", { operation: "step_over" }))).toMatch(/go\/stock\.go:22/);
    await call(client, "debug", { operation: "terminate" });
    // Dead, though maybe not yet reaped: the container's PID 1 here is `sleep`, which reaps no orphan.
    const live = inside("ps -eo stat,args")
      .split("\n")
      .filter((l) => !l.startsWith("Z"));
    expect(live.join("\n")).not.toMatch(/dlv/);
  });

  it("delve through a socket file in the scratch folder (loopback: false, as for a container without the host's loopback)", async () => {
    const sockets = track(
      await createRun({
        workdir,
        conversationId: "container-servers-sockets",
        approver: "always",
        kernels: false,
        lsp: false,
        container: { ...box(), loopback: false },
      }),
    );
    const client = await sockets.link({ surface: "full" });
    await call(client, "debug", { operation: "breakpoints", file: "go/stock.go", lines: [21] });
    const stopped = textOf(await call(client, "debug", { operation: "launch", program: "go" }));
    expect(stopped).toMatch(
      /Stopped \(breakpoint\) in thread \d+ at go\/stock\.go:21 in main\.\(\*Stock\)\.Add/,
    );
    expect(inside("ps -eo args")).toMatch(/dlv dap --listen=?unix:\/scratch\//);
    await call(client, "debug", { operation: "terminate" });
  });

  it("a container without Go: gopls's error answer carries its report of why (the go command is not found)", async () => {
    const bare = track(
      await createRun({
        workdir,
        approver: "always",
        kernels: false,
        container: box(["podman", "exec", "-i", "-e", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", name]),
      }),
    );
    const answer = await call(await bare.link({ surface: "full" }), "lsp", {
      action: "definition",
      file: "go/main.go",
      line: 7,
      symbol: "stock.Add",
    });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(
      /^gopls answered textDocument\/definition with an error: no views\. That is the server's own answer, not a fault of the arguments\. gopls reported before: .*go command required, not found: exec: "go": executable file not found in \$PATH/,
    );
  });
});
