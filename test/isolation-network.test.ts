/**
 * A run's network is its own: its sandboxes share a loopback nobody else has, and what they reach outside goes
 * through runbound's proxy, which refuses loopback and private addresses. With the network "on" a sandbox shared the
 * host's namespace: a neighbour's cell read /proc/net/tcp, found run A's kernel ports and a server A's cell started,
 * connected to them, and heard A's JavaScript kernel; a host Unix socket (abstract, or on a visible path) answered
 * too. Checked from B's cell in the same host process and in another.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandBackend, createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, outsideCheckout, textOf } from "./helpers.js";

const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`isolation tests need bubblewrap: ${bwrap.why}`);

const label = "try which listeners this sandbox's network reaches";
const canary = `canary-${randomUUID().slice(0, 12)}`;
const abstractName = `runbound-test-${randomUUID().slice(0, 8)}`;

/** The ports listening in the sandbox's own network namespace, as a cell reads them. */
const LISTENING = `def listening():
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":
                found.add(int(fields[1].rsplit(":", 1)[1], 16))
    return found
`;

/** A server in A's cell answering the canary on a loopback port, and A's listening ports (kernels, server). */
const SERVE_IN_A = `import socket, threading
${LISTENING}
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
def answer():
    while True:
        conn, _ = server.accept()
        conn.sendall(b"${canary}")
        conn.close()
threading.Thread(target=answer, daemon=True).start()
print(server.getsockname()[1])
print(" ".join(str(p) for p in sorted(listening())))
`;

/** B's tries, one line each: what it heard from A's ports, the host's port and socket, directly and by the proxy. */
function probeFromB(aPorts: readonly number[], hostPort: number): string {
  return `import socket
${LISTENING}
own = listening()
def heard(connect):
    try:
        s = connect()
        s.settimeout(3)
        data = s.recv(200)
        s.close()
        return "heard " + data.decode(errors="replace")
    except Exception as e:
        return "refused " + type(e).__name__
def tcp(port):
    return socket.create_connection(("127.0.0.1", port), timeout=3)
for port in ${JSON.stringify(aPorts)}:
    print(f"a:{port}", "own" if port in own else heard(lambda: tcp(port)))
print("host", heard(lambda: tcp(${hostPort})))
def abstract():
    s = socket.socket(socket.AF_UNIX)
    s.connect("\\0${abstractName}")
    return s
print("abstract", heard(abstract))
def through_proxy(request):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=3)
    s.sendall(request.encode())
    return s
for target in ("127.0.0.1:${hostPort}", "localhost:${hostPort}", "[::ffff:127.0.0.1]:${hostPort}"):
    print("proxy", heard(lambda: through_proxy(f"CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\n\\r\\n")))
print("proxy", heard(lambda: through_proxy("GET http://127.0.0.1:${hostPort}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")))
`;
}

/** A command worker that connects to the port its workdir's `served-port` names and prints what it heard. */
const WORKER = commandBackend("sh", [
  "-c",
  `cat > /dev/null; python3 -c "
import socket
try:
    print('heard', socket.create_connection(('127.0.0.1', int(open('served-port').read())), timeout=3).recv(100).decode())
except OSError as e:
    print('refused', type(e).__name__)"`,
]);

function expectNothingOfA(
  text: string,
  aPorts: { all: readonly number[]; served: number },
  where: string,
): void {
  expect(text, where).not.toContain(canary);
  const lines = text.split("\n");
  // The server A's cell started is on A's loopback only: B never counts it its own.
  // (The line itself, so that a failure shows what B saw there.)
  expect(
    lines.find((l) => l.startsWith(`a:${aPorts.served} `)),
    where,
  ).toBe(`a:${aPorts.served} refused ConnectionRefusedError`);
  for (const port of aPorts.all)
    expect(
      lines.find((l) => l.startsWith(`a:${port} `)),
      where,
    ).toMatch(/ (own|refused \w+)$/);
  expect(text, where).toMatch(/^host refused \w+$/m);
  expect(text, where).toMatch(/^abstract refused \w+$/m);
  const proxied = lines.filter((l) => l.startsWith("proxy "));
  expect(proxied, where).toHaveLength(4);
  for (const line of proxied) expect(line, where).toMatch(/^proxy heard HTTP\/1\.1 403 /);
}

describe.skipIf(!bwrap.ok)("isolation: a run's network is its own", () => {
  let a: string;
  let b: string;
  let runA: Run;
  let runB: Run;
  let aPorts: number[];
  let served: number;
  const hostServer = net.createServer((socket) => socket.end(canary));
  const abstractServer = net.createServer((socket) => socket.end(canary));
  let hostPort: number;

  beforeAll(async () => {
    await new Promise<void>((resolve) => hostServer.listen(0, "127.0.0.1", resolve));
    hostPort = (hostServer.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => abstractServer.listen(`\0${abstractName}`, resolve));
    a = outsideCheckout("runbound-net-a-");
    b = outsideCheckout("runbound-net-b-");
    const tenant = (workdir: string, conversationId: string) =>
      createRun({ workdir, conversationId, approver: "always", lsp: false, vibe: { fast: WORKER } });
    runA = await tenant(a, "a");
    const clientA = await runA.link({ surface: "full" });
    // A's JavaScript kernel too: its IOPub was heard by a neighbour.
    await call(clientA, "eval", { code: "1 + 1", language: "javascript", description: label });
    const [port, ports] = textOf(await call(clientA, "eval", { code: SERVE_IN_A, description: label })).split(
      "\n",
    );
    served = Number(port);
    aPorts = ports!.split(" ").map(Number);
    runB = await tenant(b, "b");
  }, 120_000);

  afterAll(async () => {
    await Promise.all([runA?.dispose(), runB?.dispose()]);
    hostServer.close();
    abstractServer.close();
    for (const dir of [a, b]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("A's cell itself reaches its own server (the ports are real, and its loopback its own)", async () => {
    expect(aPorts).toContain(served);
    expect(aPorts.length).toBeGreaterThanOrEqual(10);
    const own = textOf(
      await call(await runA.link({ surface: "full" }), "eval", {
        code: `import socket\nprint(socket.create_connection(("127.0.0.1", ${served})).recv(100).decode())`,
        description: label,
      }),
    );
    expect(own).toContain(canary);
  });

  it("the same process: B's cell reaches none of A's listeners, nor the host's port or abstract socket", async () => {
    const client = await runB.link({ surface: "full" });
    const text = textOf(
      await call(client, "eval", { code: probeFromB(aPorts, hostPort), description: label }),
    );
    expectNothingOfA(text, { all: aPorts, served }, "a cell of the same process");
  });

  it("another process: a run there reaches none of them either", async () => {
    const script = `
      import { createRun } from ${JSON.stringify(path.resolve(import.meta.dirname, "../src/index.js"))};
      const run = await createRun({ workdir: ${JSON.stringify(b)}, conversationId: "other", approver: "always", lsp: false });
      const client = await run.link({ surface: "full" });
      const r = await client.callTool({ name: "eval", arguments: { code: ${JSON.stringify(probeFromB(aPorts, hostPort))}, description: ${JSON.stringify(label)} } });
      console.log(JSON.stringify(r.content[0].text));
      await run.dispose();
    `;
    // Not spawnSync: the host's servers answer from this process's event loop, which must keep running.
    const ran = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx/esm", "--input-type=module", "-e", script],
      { encoding: "utf8", timeout: 120_000, cwd: path.resolve(import.meta.dirname, "..") },
    );
    const lines = ran.stdout.trim().split("\n");
    expectNothingOfA(
      JSON.parse(lines[lines.length - 1]!) as string,
      { all: aPorts, served },
      "a cell of another process",
    );
  }, 120_000);

  it("a debug server A's cell started: A attaches to it through the run's relay, B finds nothing there", async () => {
    writeFileSync(path.join(a, "loop.py"), "import time\nwhile True:\n    time.sleep(0.1)\n");
    const clientA = await runA.link({ surface: "full" });
    const port = Number(
      textOf(
        await call(clientA, "eval", {
          code: `import socket, subprocess, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
debuggee = subprocess.Popen([sys.executable, "-Xfrozen_modules=off", "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "loop.py"], stderr=subprocess.DEVNULL)
${LISTENING}
for _ in range(100):
    if port in listening():
        break
    time.sleep(0.1)
print(port)`,
          description: label,
        }),
      ),
    );
    const fromB = textOf(
      await call(await runB.link({ surface: "full" }), "debug", { operation: "attach", port }),
    );
    expect(fromB).toMatch(new RegExp(`^Nothing listens on 127\\.0\\.0\\.1:${port}\\.`));
    const fromA = textOf(await call(clientA, "debug", { operation: "attach", port }));
    expect(fromA).toMatch(new RegExp(`^Attached to 127\\.0\\.0\\.1:${port} under debugpy`));
    expect(fromA).not.toContain("outside the run's sandbox");
    expect(textOf(await call(clientA, "debug", { operation: "pause" }))).toMatch(/^Stopped \(pause\)/m);
    await call(clientA, "debug", { operation: "terminate" });
  }, 60_000);

  it("the run's loopback is the run's: A's worker reaches the server A's cell started, B's worker does not", async () => {
    for (const dir of [a, b]) writeFileSync(path.join(dir, "served-port"), String(served));
    const heard = async (run: Run) => {
      const client = await run.link({ surface: "full" });
      await call(client, "vibe_spawn", { brief: "connect to the served port", label: "probe" });
      const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
      return (waited.structuredContent as { worker: { result: string } }).worker.result.trim();
    };
    expect(await heard(runA)).toBe(`heard ${canary}`);
    expect(await heard(runB)).toBe("refused ConnectionRefusedError");
  }, 60_000);
});
