/** How a request to a language server can fail besides the server dying: no answer in time, or an error answer. */
export class RequestTimeout extends Error {
  override readonly name = "TimeoutError";
}

/** A server answered a request with an error of its own (gopls: "no package metadata for file …"). */
export class ServerRefusal extends Error {
  constructor(
    readonly server: string,
    readonly method: string,
    message: string,
    /** The JSON-RPC error code (-32601: the server does not implement the method). */
    readonly code: number,
  ) {
    super(message);
  }
}
