/**
 * runbound never reads a file because a component named it. A debug stop's source line was read by runbound — on the
 * host, as the harness's user — from whatever path the adapter's frame named: a debug server a cell started, or a
 * harness's custom adapter, showed line 1 of /etc/shadow. A stop's line is read only inside the workdir or the
 * run's library roots; elsewhere the path is named and its content is not.
 */
import { randomUUID } from "node:crypto";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BreakpointBook } from "../src/dap/breakpoints.js";
import { OUTSIDE_SOURCE } from "../src/dap/stop-report.js";
import { createRun } from "../src/index.js";
import { call, scriptedSession, textOf, track, workdirWith } from "./helpers.js";

const token = randomUUID().slice(0, 8);
const canary = path.join(tmpdir(), `runbound-debug-canary-${token}.py`);
const SECRET = `SECRET-LINE-${token}`;
writeFileSync(canary, `${SECRET} = 1\nsecond = 2\n`);

afterAll(() => rmSync(canary, { force: true }));

/** A DAP server of a cell's, posing as debugpy (its command line says so), whose one frame names `source`. */
const FAKE_SERVER = `import json, socket, sys
source = sys.argv[2]
port = int(sys.argv[3])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(1)
conn, _ = listener.accept()
seq = 0
def send(message):
    global seq
    seq += 1
    body = json.dumps(dict(message, seq=seq)).encode()
    conn.sendall(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
def reply(request, body=None):
    send({"type": "response", "request_seq": request["seq"], "command": request["command"], "success": True, "body": body or {}})
buffer = b""
while True:
    data = conn.recv(65536)
    if not data:
        break
    buffer += data
    while b"\\r\\n\\r\\n" in buffer:
        head, rest = buffer.split(b"\\r\\n\\r\\n", 1)
        length = int(head.split(b":")[1])
        if len(rest) < length:
            break
        request, buffer = json.loads(rest[:length]), rest[length:]
        command = request["command"]
        if command == "initialize":
            reply(request, {"supportsConfigurationDoneRequest": True})
        elif command == "attach":
            send({"type": "event", "event": "initialized", "body": {}})
            reply(request)
        elif command == "configurationDone":
            reply(request)
            send({"type": "event", "event": "stopped", "body": {"reason": "breakpoint", "threadId": 1, "allThreadsStopped": True}})
        elif command == "threads":
            reply(request, {"threads": [{"id": 1, "name": "main"}]})
        elif command == "stackTrace":
            reply(request, {"stackFrames": [{"id": 1, "name": "main", "source": {"path": source}, "line": 1, "column": 1}], "totalFrames": 1})
        elif command == "scopes":
            reply(request, {"scopes": []})
        elif command in ("disconnect", "terminate"):
            reply(request)
            sys.exit(0)
        else:
            reply(request)
`;

describe("isolation: debug stops quote only the workdir and the library roots", () => {
  it("a debug server a cell started names a file outside the workdir, directly and through a link: the path only", async () => {
    const workdir = await workdirWith({ "fake_server.py": FAKE_SERVER, "pyproject.toml": "" });
    symlinkSync(canary, path.join(workdir, "inside_link.py"));
    const run = track(
      await createRun({ workdir, conversationId: "fake-server", approver: "always", lsp: false }),
    );
    const client = await run.link({ surface: "full" });
    for (const [i, source] of [canary, path.join(workdir, "inside_link.py")].entries()) {
      const port = 23_000 + Math.floor(Math.random() * 20_000) + i;
      await call(client, "eval", {
        code: `import subprocess, sys, time\nserver = subprocess.Popen([sys.executable, "fake_server.py", "debugpy", ${JSON.stringify(source)}, "${port}"])\ntime.sleep(1)`,
        description: "start a debug server that names another file",
      });
      const attached = textOf(await call(client, "debug", { operation: "attach", port }));
      expect(attached).toMatch(/Stopped \(breakpoint\) in thread 1 at /);
      expect(attached).toContain(`  1  ${OUTSIDE_SOURCE}`);
      expect(attached).not.toContain(SECRET);
      await call(client, "debug", { operation: "terminate" });
    }
  }, 60_000);

  it("an adapter's frame naming an outside file (a scripted adapter, as a harness's own could): the path only", async () => {
    const workdir = await workdirWith({ "prog.txt": "one\ntwo\n" });
    const program = path.join(workdir, "prog.txt");
    const { session, processes } = scriptedSession(workdir, program, (target) => ({
      program: target,
      sourcePath: canary,
    }));
    try {
      const book = new BreakpointBook();
      book.lines.set(program, [{ line: 1 }]);
      const { report } = await session.launch([], workdir, book);
      expect(report).toMatchObject({
        state: "stopped",
        location: { path: canary, line: 1, source: OUTSIDE_SOURCE },
      });
      expect(JSON.stringify(report)).not.toContain(SECRET);
    } finally {
      await session.terminate();
      await processes.killAll();
    }
  });
});
