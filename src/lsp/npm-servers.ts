/**
 * The servers from npm that runbound's home holds: the `language-servers` component's (no project file marks their
 * root), and Vue's, which is typescript-language-server with Vue's TypeScript plugin (the `typescript6` component).
 */
import { setupCommand } from "../setup/components.mjs";
import type { CatalogOptions, ServerSpec } from "./spec.js";
import { VUE_WRAPPER } from "./trust/vue-plugin.js";

/** How a server from the `language-servers` component is installed. */
export const NPM_SERVER_INSTALL = `${setupCommand("language-servers")} (npm installs it into runbound's home)`;

/** The servers of the `language-servers` component (runbound's home, from npm): no project file marks a root. */
export function npmServers(): ServerSpec[] {
  const vscode = (
    id: string,
    name: string,
    languages: Record<string, string>,
    settings: Record<string, unknown>,
  ) => ({
    id,
    name,
    languages,
    rootMarkers: [],
    candidates: [{ name: `vscode-${id}-language-server`, args: ["--stdio"] }],
    searchesWorkspace: false as const,
    // Schemas are not fetched: a confined run has no network by default, and a repository's `$schema` URL would
    // make the server reach wherever it names.
    settings,
    component: "language-servers",
    install: NPM_SERVER_INSTALL,
  });
  return [
    {
      id: "bash",
      name: "bash-language-server",
      languages: { ".sh": "shellscript", ".bash": "shellscript" },
      rootMarkers: [],
      candidates: [{ name: "bash-language-server", args: ["start"] }],
      // Measured: its answers in the first ~0.6 s are empty (its parser is loading) and it reports no progress, so
      // the first document waits this bound once per start.
      warmupMs: 1500,
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "yaml",
      name: "yaml-language-server",
      languages: { ".yaml": "yaml", ".yml": "yaml" },
      rootMarkers: [],
      candidates: [{ name: "yaml-language-server", args: ["--stdio"] }],
      searchesWorkspace: false,
      settings: { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false } } },
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    vscode(
      "json",
      "vscode-json-language-server",
      { ".json": "json", ".jsonc": "jsonc" },
      {
        json: { validate: { enable: true }, schemaDownload: { enable: false } },
      },
    ),
    vscode(
      "css",
      "vscode-css-language-server",
      { ".css": "css", ".scss": "scss", ".less": "less" },
      {
        css: { validate: true },
        scss: { validate: true },
        less: { validate: true },
      },
    ),
    vscode(
      "html",
      "vscode-html-language-server",
      { ".html": "html", ".htm": "html" },
      {
        html: { validate: { scripts: true, styles: true } },
      },
    ),
    {
      id: "php",
      name: "Intelephense",
      languages: { ".php": "php", ".phtml": "php" },
      // Not composer.json: many PHP projects have none (a WordPress plugin), and the server indexes its root.
      rootMarkers: [],
      candidates: [{ name: "intelephense", args: ["--stdio"] }],
      // Its index lives in the server's temporary folder (private to a confined run); no licence key: the free
      // features (navigation, hover, symbols, diagnostics).
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "svelte",
      name: "svelte-language-server",
      languages: { ".svelte": "svelte" },
      // Not package.json: every Node project has one, and a Svelte server in each would be offered and checked there.
      rootMarkers: ["svelte.config.js", "svelte.config.mjs", "svelte.config.ts"],
      candidates: [{ name: "svelteserver", args: ["--stdio"] }],
      // The server imports the project's svelte.config and its own svelte and typescript packages unless told
      // the workspace is not trusted (its default is trusted).
      initializationOptions: { isTrusted: true },
      untrusted: {
        initializationOptions: { isTrusted: false },
        runs: "its svelte.config and its own svelte and typescript packages",
        note: "svelte-language-server loads neither the project's svelte.config nor its svelte and typescript packages (each runs the project's code); preprocessors the config names are not applied",
      },
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "dockerfile",
      name: "dockerfile-language-server",
      languages: { ".dockerfile": "dockerfile" },
      fileNames: [{ pattern: /^(Docker|Container)file(\..+)?$/, language: "dockerfile" }],
      rootMarkers: [],
      candidates: [{ name: "docker-langserver", args: ["--stdio"] }],
      searchesWorkspace: false,
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
  ];
}

/**
 * `.vue` files: typescript-language-server with Vue's TypeScript plugin in its tsserver, as VS Code's Vue extension
 * serves their script and template (Vue's own language server only adds formatting and the like, and its TypeScript
 * half is this plugin). TypeScript 7 loads no plugins, so `.ts` files stay with the run's TypeScript server: a
 * reference asked from a `.vue` file finds the `.ts` and `.vue` uses alike.
 */
export function vue(options: CatalogOptions): ServerSpec {
  return {
    id: "vue",
    name: "Vue (typescript-language-server with Vue's TypeScript plugin)",
    languages: { ".vue": "vue" },
    rootMarkers: TS_ROOT_MARKERS,
    candidates: [typescriptLanguageServer(options)],
    // Read as the server starts: the plugin may have been installed since the catalog was made (on demand).
    get initializationOptions() {
      return withVuePlugin(options, "@vue/typescript-plugin", options.embedded.vuePlugin());
    },
    untrusted: {
      get initializationOptions() {
        return withVuePlugin(options, VUE_WRAPPER, options.embedded.vueWrapperLocation());
      },
      runs: "the plugins its tsconfig names in vueCompilerOptions.plugins",
      note: "Vue's TypeScript plugin loads no plugin the project's tsconfig names in vueCompilerOptions.plugins (each is the project's code)",
    },
    warmupMs: 3000,
    diagnosticsFromTsserver: true,
    onlyWithItsFiles: true,
    component: "typescript6",
    install: `${setupCommand("typescript6")} (typescript-language-server with TypeScript 6 and Vue's TypeScript plugin, into runbound's home)`,
  };
}

/** Where a TypeScript project's tsserver roots itself. */
export const TS_ROOT_MARKERS = ["tsconfig.json", "jsconfig.json", "package.json"];

/** typescript-language-server: the project's, else runbound's home's (the `typescript6` component). */
export function typescriptLanguageServer(options: CatalogOptions) {
  return {
    name: "typescript-language-server",
    args: ["--stdio"],
    embedded: options.embedded.typescriptLanguageServer,
  };
}

/** typescript-language-server's options: TypeScript 6's tsserver, with Vue's plugin (or runbound's wrapper) when installed. */
function withVuePlugin(options: CatalogOptions, name: string, location: string | undefined) {
  return {
    tsserver: { path: options.embedded.tsserverPath() },
    plugins: location ? [{ name, location, languages: ["vue"] }] : [],
  };
}
