/**
 * runbound's JavaScript kernel: a Jupyter kernel (protocol 5.3) on the Node that runs the harness, at a fraction of
 * Deno's memory. Started by the Jupyter server from its kernelspec:
 *   node kernel.js --zeromq <zeromq package folder> <connection file>
 * zeromq comes from runbound's home (`runbound setup --only node-kernel`); everything else is Node's own.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { displayGlobal, type MimeBundle, mimeBundle, plain } from "./display.js";
import { Evaluator } from "./evaluate.js";
import { Streams } from "./streams.js";
import { type ConnectionInfo, type Message, Wire } from "./wire.js";

type Frames = (string | Buffer)[];
interface Socket {
  bind(address: string): Promise<void>;
  send(frames: Frames): Promise<void>;
  receive(): Promise<Buffer[]>;
}
type SocketOptions = Record<string, unknown>;
interface ZeroMQ {
  readonly Router: new (options: SocketOptions) => Socket;
  readonly Publisher: new (options: SocketOptions) => Socket;
  readonly Reply: new (options: SocketOptions) => Socket;
}

const [zeromqFolder, connectionFile] = argumentsOf(process.argv.slice(2));
const zmq = createRequire(path.join(zeromqFolder, "package.json"))(zeromqFolder) as ZeroMQ;
const info = JSON.parse(readFileSync(connectionFile, "utf8")) as ConnectionInfo;
const wire = new Wire(info);
const address = (port: number) =>
  info.transport === "ipc" ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;

/** One send at a time per socket (zeromq's rule), in order. */
function sender(socket: Socket): (frames: Frames) => void {
  let queue = Promise.resolve();
  return (frames) => {
    queue = queue.then(() => socket.send(frames)).catch(() => undefined);
  };
}

// With CurveZMQ keys in the connection file (runbound's server gives them), every socket is encrypted and only the
// server, which holds the keys, connects: a neighbour on the same loopback neither runs code nor hears output.
const secure: SocketOptions = info.curve_secretkey
  ? { curveServer: true, curveSecretKey: info.curve_secretkey, curvePublicKey: info.curve_publickey }
  : {};
const shell = new zmq.Router(secure);
const control = new zmq.Router(secure);
const stdin = new zmq.Router(secure);
const iopub = new zmq.Publisher(secure);
const heartbeat = new zmq.Reply(secure);
await Promise.all([
  shell.bind(address(info.shell_port)),
  control.bind(address(info.control_port)),
  stdin.bind(address(info.stdin_port)),
  iopub.bind(address(info.iopub_port)),
  heartbeat.bind(address(info.hb_port)),
]);
const toShell = sender(shell);
const toControl = sender(control);
const toStdin = sender(stdin);
const toIopub = sender(iopub);
const TOPIC = [Buffer.from("kernel")];

const publish = (type: string, content: Record<string, unknown>, parent: Message | undefined) =>
  toIopub(wire.encode(type, content, parent, TOPIC));

/** The request output belongs to: the cell running, else the last one (a timer's output after its cell ended). */
let current: Message | undefined;
let executionCount = 0;
const evaluator = new Evaluator(process.cwd());

// Streams: whatever the cell's code writes to stdout and stderr goes to the notebook, as ipykernel does.
const streams = new Streams<Message>((name, text, parent) => publish("stream", { name, text }, parent));
for (const name of ["stdout", "stderr"] as const) {
  const stream = process[name];
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    streams.write(name, typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(), current);
    const done = rest.find((item) => typeof item === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stream.write;
}
process.on("uncaughtException", (error) => process.stderr.write(`Uncaught ${describe(error)}\n`));
process.on("unhandledRejection", (reason) =>
  process.stderr.write(`Uncaught (in promise) ${describe(reason)}\n`),
);

let pendingInput: { resolve: (value: string) => void } | undefined;
const scope = globalThis as Record<string, unknown>;
scope.display = displayGlobal((bundle: MimeBundle) =>
  publish("display_data", { data: bundle, metadata: {}, transient: {} }, current),
);
/** Asks the notebook's user (the harness: tool() goes through here) and resolves with the answer. */
scope.input = (prompt = "", password = false): Promise<string> => {
  const parent = current;
  if (!parent || parent.content.allow_stdin !== true)
    return Promise.reject(new Error("input() is not available: this cell's request does not allow stdin"));
  return new Promise((resolve) => {
    pendingInput = { resolve };
    toStdin(wire.encode("input_request", { prompt: String(prompt), password }, parent));
  });
};

function describe(error: unknown): string {
  if (!(error instanceof Error)) return plain(error);
  return trimStack(error.stack ?? `${error.name}: ${error.message}`);
}

/** A stack without the kernel's own frames (from the inspector's entry on). */
function trimStack(stack: string): string {
  const lines = stack.split("\n");
  const inner = lines.findIndex((line) => /node:inspector|__runboundEnter|\[cell\]:1:\d+\)?$/.test(line));
  return (inner > 0 ? lines.slice(0, inner) : lines).join("\n");
}

async function execute(request: Message, reply: (type: string, content: Record<string, unknown>) => void) {
  const code = String(request.content.code ?? "");
  const silent = request.content.silent === true;
  if (!silent && request.content.store_history !== false) executionCount++;
  current = request;
  publish("execute_input", { code, execution_count: executionCount }, request);
  const outcome = await evaluator.run(code).catch((error: unknown) => ({ kind: "error" as const, error }));
  streams.flush();
  if (outcome.kind === "value") {
    if (!silent && outcome.value !== undefined)
      publish(
        "execute_result",
        { execution_count: executionCount, data: mimeBundle(outcome.value), metadata: {} },
        request,
      );
    reply("execute_reply", {
      status: "ok",
      execution_count: executionCount,
      payload: [],
      user_expressions: {},
    });
    return;
  }
  const error =
    outcome.kind === "interrupted"
      ? { ename: "Interrupted", evalue: "SIGINT", traceback: ["Interrupted by SIGINT"] }
      : errorContent(outcome.error);
  publish("error", error, request);
  reply("execute_reply", { status: "error", execution_count: executionCount, ...error });
}

function errorContent(thrown: unknown) {
  if (thrown instanceof Error) {
    const stack = describe(thrown);
    return { ename: thrown.name, evalue: thrown.message, traceback: stack.split("\n") };
  }
  const shown = plain(thrown);
  return { ename: "Uncaught", evalue: shown, traceback: [`Uncaught ${shown}`] };
}

const KERNEL_INFO = {
  status: "ok",
  protocol_version: "5.3",
  implementation: "runbound-node",
  implementation_version: "1",
  language_info: {
    name: "javascript",
    version: process.versions.node,
    mimetype: "text/javascript",
    file_extension: ".js",
  },
  banner: `runbound's JavaScript kernel on Node ${process.version}`,
  help_links: [],
};

async function handle(request: Message, send: (frames: Frames) => void): Promise<void> {
  const type = request.header.msg_type;
  const reply = (replyType: string, content: Record<string, unknown>) =>
    send(wire.encode(replyType, content, request));
  publish("status", { execution_state: "busy" }, request);
  try {
    if (type === "execute_request") await execute(request, reply);
    else if (type === "kernel_info_request") reply("kernel_info_reply", KERNEL_INFO);
    else if (type === "is_complete_request") reply("is_complete_reply", { status: "unknown" });
    else if (type === "complete_request")
      reply("complete_reply", {
        status: "ok",
        matches: [],
        cursor_start: request.content.cursor_pos ?? 0,
        cursor_end: request.content.cursor_pos ?? 0,
        metadata: {},
      });
    else if (type === "inspect_request")
      reply("inspect_reply", { status: "ok", found: false, data: {}, metadata: {} });
    else if (type === "comm_info_request") reply("comm_info_reply", { status: "ok", comms: {} });
    else if (type === "history_request") reply("history_reply", { status: "ok", history: [] });
    else if (type === "interrupt_request") {
      process.emit("SIGINT");
      reply("interrupt_reply", { status: "ok" });
    } else if (type === "shutdown_request") {
      reply("shutdown_reply", { status: "ok", restart: request.content.restart === true });
      setTimeout(() => process.exit(0), 100);
    }
  } finally {
    publish("status", { execution_state: "idle" }, request);
  }
}

async function serve(socket: Socket, send: (frames: Frames) => void, inOrder: boolean): Promise<never> {
  for (;;) {
    const message = wire.decode(await socket.receive());
    if (!message) continue;
    const handled = handle(message, send);
    if (inOrder) await handled;
  }
}

async function answerInput(): Promise<never> {
  for (;;) {
    const message = wire.decode(await stdin.receive());
    if (message?.header.msg_type !== "input_reply" || !pendingInput) continue;
    const { resolve } = pendingInput;
    pendingInput = undefined;
    resolve(String(message.content.value ?? ""));
  }
}

async function echo(): Promise<never> {
  // A reply socket alternates strictly: each ping is answered before the next is read.
  for (;;) await heartbeat.send(await heartbeat.receive());
}

function argumentsOf(args: string[]): [string, string] {
  const at = args.indexOf("--zeromq");
  const folder = at >= 0 ? args[at + 1] : undefined;
  const file = args.filter((_, i) => i !== at && i !== at + 1)[0];
  if (!folder || !file) throw new Error("usage: kernel.js --zeromq <folder> <connection file>");
  return [folder, file];
}

publish("status", { execution_state: "starting" }, undefined);
void serve(control, toControl, false);
void answerInput();
void echo();
await serve(shell, toShell, true);
