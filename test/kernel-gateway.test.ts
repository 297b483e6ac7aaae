/**
 * Kernels on a Jupyter Kernel Gateway (the API by which kernels move to other hosts; Enterprise Gateway speaks the
 * same): `kernels: { server: { url, token } }`, against a real gateway the test starts on loopback. Persistence, an
 * image, tool(), an interrupt, and the gateway killed mid-cell then started again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const label = "a cell on the kernel gateway";
/** A 1×1 PNG, so the image case needs nothing but IPython in the gateway's environment. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function gatewayBin(): string {
  const tools = path.resolve(import.meta.dirname, "../.tools");
  const dir = existsSync(tools) ? readdirSync(tools).find((d) => d.startsWith("kernel-gateway-")) : undefined;
  if (!dir)
    throw new Error(
      "Jupyter Kernel Gateway is missing from .tools/: run `node scripts/setup.mjs` (npm test does)",
    );
  return path.join(tools, dir, "bin");
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the gateway and resolves once it says where it listens. */
async function startGateway(port: number, token: string, cwd: string): Promise<ChildProcess> {
  const bin = gatewayBin();
  const gateway = spawn(
    path.join(bin, "jupyter-kernelgateway"),
    [
      `--KernelGatewayApp.ip=127.0.0.1`,
      `--KernelGatewayApp.port=${port}`,
      `--KernelGatewayApp.auth_token=${token}`,
    ],
    { cwd, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${seen}`)), 30_000);
    gateway.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      if (seen.includes("is available at")) {
        clearTimeout(timer);
        resolve();
      }
    });
    gateway.once("exit", (code) => reject(new Error(`the gateway exited (${code}): ${seen}`)));
  });
  return gateway;
}

describe("kernels on a Jupyter Kernel Gateway", () => {
  const token = "gateway-test-token";
  let port = 0;
  let gateway: ChildProcess;
  let run: Run;
  let dir = "";
  let remove = async () => {};
  const cell = async (code: string) =>
    call(await run.link({ surface: "full" }), "eval", { code, description: label });

  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir({ "data.txt": "alpha\nbeta\n" }));
    port = await freePort();
    gateway = await startGateway(port, token, dir);
    run = await createRun({
      workdir: dir,
      approver: "always",
      lsp: false,
      kernels: { server: { url: `http://127.0.0.1:${port}/`, token }, idleSeconds: 3 },
    });
  });
  afterAll(async () => {
    await run.dispose();
    gateway.kill("SIGKILL");
    await remove();
  });

  it("keeps state between cells, shows an image, and tool() reaches the run's tools", async () => {
    expect(textOf(await cell("x = 41"))).toBe("(no output)");
    expect(textOf(await cell("x + 1"))).toBe("42");
    const image = await cell(
      `from IPython.display import Image, display\nimport base64\ndisplay(Image(data=base64.b64decode("${PNG}")))`,
    );
    expect(image.content).toContainEqual(
      expect.objectContaining({ type: "image", mimeType: "image/png", data: PNG }),
    );
    expect(textOf(await cell("print(tool('read', {'path': 'data.txt'})['text'])"))).toBe(
      "data.txt (2 lines)\n1\talpha\n2\tbeta",
    );
  });

  it("a quiet cell is interrupted at the idle budget and the kernel keeps its state", async () => {
    const slept = await cell("import time\ntime.sleep(60)");
    expect(slept.structuredContent).toMatchObject({ status: "interrupted" });
    expect(textOf(await cell("x"))).toBe("41");
  });

  it("the gateway killed mid-cell: the cell says so, and once it is back the next cell runs on a new kernel", async () => {
    const pending = cell("import time\ntime.sleep(20)");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    gateway.kill("SIGKILL");
    const died = await pending;
    expect(died.structuredContent).toMatchObject({ status: "died" });
    expect(textOf(died)).toMatch(
      /^The kernel was lost during the cell: .*; the Jupyter server the harness gave \(http:\/\/127\.0\.0\.1:\d+\/\) does not answer: once it is up again, the next cell starts a kernel there\. Its state \(variables, imports\) is lost/,
    );
    gateway = await startGateway(port, token, dir);
    const again = await cell("'x' in globals()");
    expect(textOf(again)).toMatch(/False/);
  });
});

describe("a harness's Jupyter server that stops answering", () => {
  it("does not hold run.dispose: the kernels get their grace, then the run ends, and the log says why", async () => {
    const { dir, remove } = await suiteWorkdir({});
    const port = await freePort();
    const token = "stopped-gateway-token";
    const gateway = await startGateway(port, token, dir);
    const logged: string[] = [];
    const run = await createRun({
      workdir: dir,
      approver: "always",
      lsp: false,
      kernels: { server: { url: `http://127.0.0.1:${port}/`, token } },
      logger: (entry) => logged.push(`${entry.level} ${entry.source}: ${entry.message}`),
    });
    try {
      expect(
        textOf(
          await call(await run.link({ surface: "full" }), "eval", { code: "1 + 1", description: label }),
        ),
      ).toBe("2");
      // Stopped, not gone: its socket still accepts, and no answer ever comes.
      gateway.kill("SIGSTOP");
      // Without the grace this never returned (the test's own timeout ends it).
      await run.dispose();
      expect(logged).toContain(
        "warn run: the kernels did not end within 10 s of dispose; the run's processes are ended without waiting for them",
      );
    } finally {
      gateway.kill("SIGCONT");
      gateway.kill("SIGKILL");
      await remove();
    }
  }, 60_000);
});
