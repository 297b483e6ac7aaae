/**
 * The dynamic grammars' npm packages (@ast-grep/lang-ID): each one's pinned version and the symbol its parser
 * exports. `core` ones are runbound's dependencies — the two most used by the weekly downloads of ast-grep's own
 * grammar packages on npm (json 86k, python 33k; yaml 31k, go, java and the rest fewer); with napi's built-in
 * TypeScript, JavaScript, HTML and CSS they keep the install under 150 MB (yaml's 2.7 MB did not fit). The others come into runbound's home with
 * `runbound setup --only grammars`. Plain JavaScript: setup reads it before anything is built.
 * @type {Readonly<Record<string, { readonly version: string, readonly symbol: string, readonly core?: true }>>}
 */
export const GRAMMAR_PACKAGES = {
  python: { version: "0.0.6", symbol: "tree_sitter_python", core: true },
  json: { version: "0.0.6", symbol: "tree_sitter_json", core: true },
  yaml: { version: "0.0.6", symbol: "tree_sitter_yaml" },
  go: { version: "0.0.6", symbol: "tree_sitter_go" },
  java: { version: "0.0.7", symbol: "tree_sitter_java" },
  rust: { version: "0.0.7", symbol: "tree_sitter_rust" },
  c: { version: "0.0.6", symbol: "tree_sitter_c" },
  cpp: { version: "0.0.6", symbol: "tree_sitter_cpp" },
  kotlin: { version: "0.0.7", symbol: "tree_sitter_kotlin" },
  ruby: { version: "0.0.7", symbol: "tree_sitter_ruby" },
  bash: { version: "0.0.8", symbol: "tree_sitter_bash" },
  dart: { version: "0.0.7", symbol: "tree_sitter_dart" },
  csharp: { version: "0.0.6", symbol: "tree_sitter_c_sharp" },
  elixir: { version: "0.0.7", symbol: "tree_sitter_elixir" },
  haskell: { version: "0.0.3", symbol: "tree_sitter_haskell" },
  lua: { version: "0.0.7", symbol: "tree_sitter_lua" },
  php: { version: "0.0.7", symbol: "tree_sitter_php" },
  scala: { version: "0.0.7", symbol: "tree_sitter_scala" },
  sql: { version: "0.0.8", symbol: "tree_sitter_sql" },
  swift: { version: "0.0.8", symbol: "tree_sitter_swift" },
  toml: { version: "0.0.5", symbol: "tree_sitter_toml" },
  markdown: { version: "0.0.3", symbol: "tree_sitter_markdown" },
  angular: { version: "0.0.4", symbol: "tree_sitter_angular" },
};
