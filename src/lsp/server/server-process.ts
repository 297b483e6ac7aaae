/**
 * A language server's process and its message connection, in the place it runs: on the host, confined (when it
 * runs the project's code), or in the conversation's container — where every server runs, and its messages' paths
 * are mapped (Content-Length frames in, the same frames out with every path and file URI mapped).
 */
import { Transform, type TransformCallback } from "node:stream";
import {
  AbstractMessageWriter,
  createMessageConnection,
  type Message,
  type MessageConnection,
  type MessageWriter,
  StreamMessageReader,
} from "vscode-jsonrpc/node";
import type { Resolved } from "../../proc/binaries.js";
import { goBuildCache } from "../../proc/build-cache.js";
import { mapPaths, type Place } from "../../proc/place.js";
import type { ProcessTracker, TrackedProcess } from "../../proc/tracker.js";
import type { ServerSpec } from "../catalog.js";

const HEADER_END = Buffer.from("\r\n\r\n");

class MappedFrames extends Transform {
  readonly #map: (path: string) => string;
  /** What has come of the message being read, kept apart until it is whole (joining each chunk to it was quadratic). */
  #parts: Buffer[] = [];
  #size = 0;
  /** The frame's whole length once its header is read. */
  #need = 0;

  constructor(map: (path: string) => string) {
    super();
    this.#map = map;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#parts.push(chunk);
    this.#size += chunk.length;
    if (this.#need > 0 && this.#size < this.#need) {
      done();
      return;
    }
    let buffer =
      this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    this.#need = 0;
    for (;;) {
      const end = buffer.indexOf(HEADER_END);
      if (end === -1) break;
      const length = Number(/Content-Length:\s*(\d+)/i.exec(buffer.subarray(0, end).toString("ascii"))?.[1]);
      const start = end + HEADER_END.length;
      if (!Number.isFinite(length)) {
        done(new Error("a message without Content-Length"));
        return;
      }
      if (buffer.length < start + length) {
        this.#need = start + length;
        break;
      }
      const body = buffer.subarray(start, start + length).toString("utf8");
      buffer = buffer.subarray(start + length);
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        done(new Error(`a message that is not JSON: ${JSON.stringify(body.slice(0, 80))}`));
        return;
      }
      const mapped = Buffer.from(JSON.stringify(mapPaths(message, this.#map)), "utf8");
      this.push(Buffer.concat([Buffer.from(`Content-Length: ${mapped.length}\r\n\r\n`, "ascii"), mapped]));
    }
    if (buffer.length > 0) {
      this.#parts = [buffer];
      this.#size = buffer.length;
    }
    done();
  }
}

/**
 * Each message as one write of its whole frame. The library's writer writes the header, waits for that write's
 * callback, then writes the body: two system calls a message, each ~20–40 µs on a sandboxed kernel.
 */
class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  readonly #stream: NodeJS.WritableStream;
  #errors = 0;

  constructor(stream: NodeJS.WritableStream) {
    super();
    this.#stream = stream;
    stream.on("error", (error: Error) => this.fireError(error));
    stream.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const body = Buffer.from(JSON.stringify(message), "utf8");
    const frame = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
    return new Promise((resolve, reject) => {
      this.#stream.write(frame, (error?: Error | null) => {
        if (!error) {
          this.#errors = 0;
          resolve();
          return;
        }
        this.fireError(error, message, ++this.#errors);
        reject(error);
      });
    });
  }

  end(): void {
    this.#stream.end();
  }
}

/**
 * Starts the server in the run's place — every server, runbound's own too: on the host a server reads whatever the
 * repository points it at (a `../../outside` import, extraPaths, an `#include "/outside/x.h"`, a go.mod `replace`)
 * and says it in its own text (a hover's type, a diagnostic), which no filter of its locations catches; in the
 * sandbox there is no such file. `inPlace`: it runs in another PID namespace (confined, or in a container), so it
 * cannot see this process (its `processId` must be null, or it takes the client for gone and exits).
 */
export function startServer(
  processes: ProcessTracker,
  spec: ServerSpec,
  root: string,
  resolved: Resolved,
  runsProjectCode: boolean,
): { proc: TrackedProcess; connection: MessageConnection; inPlace: boolean } {
  const place = processes.confinedPlace;
  // Where the run confines, or in the container (the project's toolchains are there). On the host (confine off, or
  // bubblewrap missing under "preferred") a server that runs the project's code still asks to be confined: the
  // tracker runs it on the host, which the status says.
  const inPlace = runsProjectCode || place.kind !== "host";
  const proc = processes.spawn(`${spec.id} language server`, resolved.command, resolved.args, {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
    confined: inPlace,
    ...spawnEnvironment(spec, root, place),
  });
  const connection = createMessageConnection(
    ...serverStreams(proc, place.kind === "container" ? place : undefined),
  );
  return { proc, connection, inPlace };
}

/**
 * What a server or its check is given besides the run's environment: its spec's variables, and confined, a build
 * cache of its root's own, writable (the home's is private and empty in every sandbox).
 */
export function spawnEnvironment(
  spec: ServerSpec,
  root: string,
  place: Place,
): { env?: Readonly<Record<string, string>>; writable?: readonly string[] } {
  const cache = spec.buildCache && place.kind === "confined" ? goBuildCache(root) : undefined;
  const env = { ...spec.env, ...cache?.env };
  return { ...(Object.keys(env).length ? { env } : {}), ...(cache ? { writable: [cache.dir] } : {}) };
}

/** A server's stdio as message streams; through a path map when it runs where paths differ. */
function serverStreams(
  proc: TrackedProcess,
  place: Pick<Place, "toPlace" | "toHost"> | undefined,
): [StreamMessageReader, FrameWriter] {
  if (!place) return [new StreamMessageReader(proc.child.stdout!), new FrameWriter(proc.child.stdin!)];
  const fromServer = proc.child.stdout!.pipe(new MappedFrames((p) => place.toHost(p)));
  const toServer = new MappedFrames((p) => place.toPlace(p));
  toServer.pipe(proc.child.stdin!);
  return [new StreamMessageReader(fromServer), new FrameWriter(toServer)];
}
