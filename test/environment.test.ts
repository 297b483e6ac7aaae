/**
 * What a run's processes get of the harness's environment: the variables a toolchain needs, by allow-list — no
 * credential, whatever its name — in a kernel's cells, a debuggee and its adapter, a language server, a worker,
 * unless the harness passes it; values it sets arrive.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandBackend, createRun, type Run } from "../src/index.js";
import { allowedByDefault, childEnvironment } from "../src/proc/environment.js";
import { descendantsOf } from "../src/proc/tree.js";
import { call, suiteWorkdir, textOf, track, workdirWith } from "./helpers.js";

/**
 * Secrets by the names they go by: the usual ones, and those a name-based scrub let through (a PAT, a Stripe key,
 * database URIs, a password variable without "PASSWORD", a CI job's JWT, a webhook, a cookie, an index URL with
 * a password in it).
 */
const SECRETS = {
  OPENAI_API_KEY: "sk-openai-secret",
  ANTHROPIC_API_KEY: "sk-ant-secret",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  GITHUB_TOKEN: "ghp-secret",
  DB_PASSWORD_PROD: "hunter2",
  GITHUB_PAT: "github-pat-secret",
  OPENAI_KEY: "openai-key-secret",
  STRIPE_SK: "stripe-sk-secret",
  MONGO_URI: "mongodb://u:mongo-secret@db",
  REDIS_URI: "redis://:redis-secret@cache",
  MYSQL_PWD: "mysql-secret",
  CI_JOB_JWT: "jwt-secret",
  SLACK_WEBHOOK_URL: "https://hooks.slack.com/slack-secret",
  SESSION_COOKIE: "cookie-secret",
  PIP_INDEX_URL: "https://user:pip-secret@pypi.example.com/simple",
};
const PLAIN = { RUNBOUND_TEST_PLAIN: "plain-value" };
const label = "print what this process was given";

/** A process's environment as the kernel shows it to its owner. */
function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

function expectScrubbed(env: Record<string, string>, what: string): void {
  for (const name of Object.keys(SECRETS)) expect(env[name], `${what}: ${name}`).toBeUndefined();
  expect(JSON.stringify(env), what).not.toMatch(/secret|hunter2/);
  // Passed by name, and what a toolchain needs by the allow-list.
  expect(env.RUNBOUND_TEST_PLAIN, what).toBe("plain-value");
  expect(env.PATH, what).toBeTruthy();
}

describe("the environment of a run's processes", () => {
  const before = { ...process.env };
  let run: Run;
  let remove = async () => {};
  beforeAll(async () => {
    Object.assign(process.env, SECRETS, PLAIN);
    const suite = await suiteWorkdir({
      "pyproject.toml": "",
      "show.py":
        'import os\nprint(sorted(k for k in os.environ if k.endswith(("_KEY", "_TOKEN", "PLAIN"))))\nx = 1\n',
    });
    remove = suite.remove;
    run = await createRun({
      workdir: suite.dir,
      conversationId: "env",
      approver: "always",
      env: { pass: Object.keys(PLAIN) },
      vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; env"]) },
    });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
    for (const name of [...Object.keys(SECRETS), ...Object.keys(PLAIN)]) delete process.env[name];
    Object.assign(process.env, before);
  });

  it("only the allow-list reaches a child: no credential by any name, a relative PATH entry dropped; pass and set are the harness's word", () => {
    for (const name of Object.keys(SECRETS)) expect(allowedByDefault(name), name).toBe(false);
    for (const name of [
      "PATH",
      "HOME",
      "LANG",
      "LC_ALL",
      "VIRTUAL_ENV",
      "PYTHONPATH",
      "GOPATH",
      "TERM",
      "CARGO_HOME",
    ])
      expect(allowedByDefault(name), name).toBe(true);
    expect(allowedByDefault("RUNBOUND_TEST_PLAIN")).toBe(false);
    expect(
      childEnvironment(
        {
          OPENAI_API_KEY: "k",
          GH_TOKEN: "t",
          STRIPE_SK: "s",
          PATH: "/bin::.:./x:node_modules/.bin:/usr/bin",
        },
        { pass: ["GH_TOKEN"], set: { X: "1" } },
      ),
    ).toEqual({ GH_TOKEN: "t", PATH: "/bin:/usr/bin", X: "1" });
  });

  it("a kernel's cells, a debuggee and its adapter, a language server and a worker hold none", async () => {
    const client = await run.link({ surface: "full" });
    const cell = await call(client, "eval", {
      code: "import os, json\nprint(json.dumps(dict(os.environ)))",
      description: label,
    });
    expectScrubbed(JSON.parse(textOf(cell)), "a Python cell");
    const jsCell = await call(client, "eval", {
      code: "console.log(JSON.stringify(process.env))",
      language: "javascript",
      description: label,
    });
    expectScrubbed(JSON.parse(textOf(jsCell)), "a JavaScript cell");

    await call(client, "debug", { operation: "breakpoints", file: "show.py", lines: [3] });
    const stopped = textOf(await call(client, "debug", { operation: "launch", program: "show.py" }));
    expect(stopped).toMatch(/show\.py:3/);
    const output = textOf(await call(client, "debug", { operation: "output" }));
    expect(output).toContain("['RUNBOUND_TEST_PLAIN']");
    const adapter = run.processes.running().find((p) => p.label === "debugpy debug adapter")!;
    expectScrubbed(environOf(adapter.pid), "the debugpy adapter");
    for (const pid of await descendantsOf(adapter.pid))
      expectScrubbed(environOf(pid), `the debuggee (${pid})`);
    await call(client, "debug", { operation: "terminate" });

    await call(client, "lsp", { action: "hover", file: "show.py", line: 3, symbol: "x" });
    const server = run.processes.running().find((p) => p.label === "pyright language server")!;
    expectScrubbed(environOf(server.pid), "pyright");

    await call(client, "vibe_spawn", { brief: "print your environment", label: "env" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    const result = (waited.structuredContent as { worker: { result: string } }).worker.result;
    expect(result).toContain("RUNBOUND_TEST_PLAIN=plain-value");
    for (const value of Object.values(SECRETS)) expect(result).not.toContain(value);
  });

  it("what the harness passes and sets arrives: in the run's processes, and per worker backend", async () => {
    const dir = await workdirWith();
    const own = track(
      await createRun({
        workdir: dir,
        approver: "always",
        lsp: false,
        env: { pass: ["OPENAI_API_KEY"], set: { RUNBOUND_TEST_SET: "set-value" } },
        vibe: {
          fast: commandBackend("sh", ["-c", "cat > /dev/null; env"], {
            env: { pass: ["GITHUB_TOKEN"], set: { WORKER_ONLY_TOKEN: "w-token" } },
          }),
        },
      }),
    );
    const client = await own.link({ surface: "full" });
    const cell = await call(client, "eval", {
      code: "import os, json\nprint(json.dumps(dict(os.environ)))",
      description: label,
    });
    const env = JSON.parse(textOf(cell)) as Record<string, string>;
    expect(env.OPENAI_API_KEY).toBe("sk-openai-secret");
    expect(env.RUNBOUND_TEST_SET).toBe("set-value");
    expect(env.GITHUB_TOKEN).toBeUndefined();
    await call(client, "vibe_spawn", { brief: "print your environment", label: "env" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    const result = (waited.structuredContent as { worker: { result: string } }).worker.result;
    expect(result).toContain("GITHUB_TOKEN=ghp-secret");
    expect(result).toContain("WORKER_ONLY_TOKEN=w-token");
    expect(result).toContain("OPENAI_API_KEY=sk-openai-secret");
    expect(result).not.toContain("ANTHROPIC_API_KEY");
  });
});
