/**
 * The Jupyter messaging protocol's wire form (v5.3) for runbound's Node kernel: a connection file's fields, and
 * messages as multipart frames signed with HMAC-SHA256 over header, parent header, metadata and content.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

export interface ConnectionInfo {
  readonly transport: string;
  readonly ip: string;
  readonly key: string;
  readonly signature_scheme: string;
  readonly shell_port: number;
  readonly iopub_port: number;
  readonly stdin_port: number;
  readonly control_port: number;
  readonly hb_port: number;
  /** CurveZMQ's key pair (Z85), when the kernelspec said the kernel takes it. */
  readonly curve_publickey?: string;
  readonly curve_secretkey?: string;
}

export interface Header {
  readonly msg_id: string;
  readonly msg_type: string;
  readonly session: string;
  readonly username: string;
  readonly date: string;
  readonly version: string;
}

export interface Message {
  /** The routing frames before the delimiter: a reply goes back to them. */
  readonly ids: readonly Buffer[];
  readonly header: Header;
  readonly parent: Partial<Header>;
  readonly metadata: Record<string, unknown>;
  readonly content: Record<string, unknown>;
}

const DELIMITER = "<IDS|MSG>";
const SESSION = randomUUID();

export class Wire {
  readonly #key: string;

  constructor(info: ConnectionInfo) {
    if (info.key && info.signature_scheme !== "hmac-sha256")
      throw new Error(`unsupported signature scheme ${info.signature_scheme}`);
    this.#key = info.key;
  }

  #sign(parts: readonly (string | Buffer)[]): string {
    if (!this.#key) return "";
    const hmac = createHmac("sha256", this.#key);
    for (const part of parts) hmac.update(part);
    return hmac.digest("hex");
  }

  /** A received message, or undefined when its signature is wrong or it is malformed (dropped, as ipykernel does). */
  decode(frames: readonly Buffer[]): Message | undefined {
    const at = frames.findIndex((frame) => frame.toString() === DELIMITER);
    if (at < 0 || frames.length < at + 6) return undefined;
    const [signature, header, parent, metadata, content] = frames.slice(at + 1, at + 6) as [
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
    ];
    const expected = Buffer.from(this.#sign([header, parent, metadata, content]));
    if (this.#key && (expected.length !== signature.length || !timingSafeEqual(expected, signature)))
      return undefined;
    try {
      return {
        ids: frames.slice(0, at),
        header: JSON.parse(header.toString()),
        parent: JSON.parse(parent.toString()),
        metadata: JSON.parse(metadata.toString()),
        content: JSON.parse(content.toString()),
      };
    } catch {
      return undefined;
    }
  }

  /** The frames of a new message of `type`, in reply to (or caused by) `parent`. */
  encode(
    type: string,
    content: Record<string, unknown>,
    parent: Message | undefined,
    ids: readonly Buffer[] = parent?.ids ?? [],
  ): (string | Buffer)[] {
    const header: Header = {
      msg_id: randomUUID(),
      msg_type: type,
      session: SESSION,
      username: "runbound",
      date: new Date().toISOString(),
      version: "5.3",
    };
    const parts = [header, parent?.header ?? {}, {}, content].map((part) => JSON.stringify(part));
    return [...ids, DELIMITER, this.#sign(parts), ...parts];
  }
}
