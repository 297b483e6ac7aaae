/** What a client keeps per document: the text and version it sent, and the diagnostics the server pushed. */
import type { Diagnostic } from "vscode-languageserver-protocol";

export interface PushedDiagnostics {
  readonly version: number | undefined;
  readonly items: Diagnostic[];
  /** Monotonic sequence number of the publish, to tell "newer than" without clocks. */
  readonly seq: number;
}

export interface OpenDocument {
  readonly uri: string;
  version: number;
  text: string;
}
