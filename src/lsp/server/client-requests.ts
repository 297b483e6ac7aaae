/**
 * The client's side of the protocol: the capabilities runbound declares, and the requests and notifications a real
 * client must answer — configuration from the catalog's settings, registrations, progress, pushed diagnostics —
 * handed to the client through a sink; edits a server asks to apply are refused (runbound applies them itself).
 */
import { pathToFileURL } from "node:url";
import { type MessageConnection, ResponseError } from "vscode-jsonrpc/node";
import type {
  PublishDiagnosticsParams,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageserver-protocol";

export interface ServerEventSink {
  readonly root: string;
  settings(): Readonly<Record<string, unknown>>;
  registered(id: string, method: string, options: unknown): void;
  unregistered(id: string): void;
  published(params: PublishDiagnosticsParams): void;
  progressed(
    token: string | number,
    value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd,
  ): void;
  statusChanged(params: { quiescent?: boolean; message?: string }): void;
  /** `report`: sent as an error or a warning. */
  logged(message: string, report: boolean): void;
}

export function answerServerRequests(connection: MessageConnection, sink: ServerEventSink): void {
  connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) =>
    params.items.map((item) => lookup(sink.settings(), item.section)),
  );
  connection.onRequest(
    "client/registerCapability",
    (params: { registrations: { id: string; method: string; registerOptions?: unknown }[] }) => {
      for (const r of params.registrations) sink.registered(r.id, r.method, r.registerOptions);
      return null;
    },
  );
  connection.onRequest("client/unregisterCapability", (params: { unregisterations: { id: string }[] }) => {
    for (const r of params.unregisterations) sink.unregistered(r.id);
    return null;
  });
  connection.onRequest("workspace/workspaceFolders", () => [
    { uri: pathToFileURL(sink.root).href, name: sink.root.split("/").pop() ?? "root" },
  ]);
  connection.onRequest("window/workDoneProgress/create", () => null);
  connection.onRequest("window/showMessageRequest", () => null);
  connection.onRequest("window/showDocument", () => ({ success: false }));
  connection.onRequest("workspace/applyEdit", () => ({
    applied: false,
    failureReason: "runbound applies edits itself, after checking the files",
  }));
  connection.onRequest((method: string) => {
    // Every */refresh request: the client re-asks when it next needs the data.
    if (method.endsWith("/refresh")) return null;
    return new ResponseError(-32601, `runbound does not handle ${method}`);
  });
  connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
    sink.published(params);
  });
  connection.onNotification(
    "$/progress",
    (params: {
      token: string | number;
      value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;
    }) => {
      sink.progressed(params.token, params.value);
    },
  );
  connection.onNotification(
    "experimental/serverStatus",
    (params: { quiescent?: boolean; message?: string }) => {
      sink.statusChanged(params);
    },
  );
  // Message types: 1 error, 2 warning, 3 info, 4 log.
  connection.onNotification("window/logMessage", (params: { type: number; message: string }) => {
    if (params.type <= 2) sink.logged(params.message, true);
  });
  connection.onNotification("window/showMessage", (params: { type: number; message: string }) =>
    sink.logged(params.message, params.type <= 2),
  );
  connection.onNotification(() => undefined);
}

function lookup(settings: Readonly<Record<string, unknown>>, section: string | undefined): unknown {
  if (!section) return settings;
  let node: unknown = settings;
  for (const key of section.split(".")) {
    if (node === null || typeof node !== "object") return null;
    node = (node as Record<string, unknown>)[key];
  }
  return node ?? null;
}

export const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  // rust-analyzer reports "still loading the workspace" as experimental/serverStatus { quiescent: false }.
  experimental: { serverStatusNotification: true },
  window: { workDoneProgress: true, showMessage: {}, showDocument: { support: false } },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    applyEdit: false,
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
    symbol: { dynamicRegistration: false },
    diagnostics: { refreshSupport: true },
    didChangeWatchedFiles: { dynamicRegistration: true },
    fileOperations: { willRename: true, didRename: true },
  },
  textDocument: {
    synchronization: { didSave: true, willSave: false, dynamicRegistration: false },
    publishDiagnostics: { versionSupport: true, relatedInformation: true, codeDescriptionSupport: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
    definition: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: {
          valueSet: [
            "",
            "quickfix",
            "refactor",
            "refactor.extract",
            "refactor.inline",
            "refactor.rewrite",
            "source",
            "source.organizeImports",
            "source.fixAll",
          ],
        },
      },
      isPreferredSupport: true,
    },
    rename: { prepareSupport: true },
    callHierarchy: { dynamicRegistration: false },
    typeHierarchy: { dynamicRegistration: false },
  },
} as const;
