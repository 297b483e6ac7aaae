/**
 * The environment every process of a run starts with: the variables a toolchain needs of the harness's
 * environment, by allow-list — never the harness's environment less a list of names. A name-based scrub let
 * `GITHUB_PAT`, `STRIPE_SK`, `MONGO_URI`, `MYSQL_PWD`, `SESSION_COOKIE` and a `PIP_INDEX_URL` with a password
 * through into cells, debuggees, workers and language servers: a secret's name says nothing reliable. What the
 * harness wants to give, it names: `pass` keeps names of its environment, `set` adds or overrides values.
 */
import path from "node:path";

export interface EnvPolicy {
  /** Names of the harness's environment to give every child besides the allow-list (exact names). */
  readonly pass?: readonly string[];
  /** Values every child gets (after the allow-list, so a credential given here arrives). */
  readonly set?: Readonly<Record<string, string>>;
}

/**
 * What a toolchain needs to run as it does in the harness's shell: where things are (PATH, HOME, the toolchains'
 * homes), how text is shown (locale, terminal), which certificates to trust. None of them is a credential by
 * purpose; a value that carries one (a proxy URL with a password) is the harness's to `pass`.
 */
const ALLOWED = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "COLUMNS",
  "LINES",
  "TMPDIR",
  "CI",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  // Toolchains' homes and choices.
  "PYENV_ROOT",
  "PYENV_VERSION",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "CONDA_DEFAULT_ENV",
  "PYTHONPATH",
  "PYTHONUTF8",
  "PYTHONIOENCODING",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "RUSTFLAGS",
  "CARGO_TARGET_DIR",
  "GOROOT",
  "GOPATH",
  "GOMODCACHE",
  "GOCACHE",
  "GOFLAGS",
  "GOTOOLCHAIN",
  "CGO_ENABLED",
  "NVM_DIR",
  "NVM_BIN",
  "NODE_PATH",
  "VOLTA_HOME",
  "DENO_DIR",
  "DENO_INSTALL",
  "BUN_INSTALL",
  "SDKMAN_DIR",
  "JAVA_HOME",
  "LD_LIBRARY_PATH",
  "PKG_CONFIG_PATH",
  "CC",
  "CXX",
  "CFLAGS",
  "CXXFLAGS",
  "CPPFLAGS",
  "LDFLAGS",
  // Which certificates to trust (a company's TLS inspection): paths, not secrets.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "NODE_EXTRA_CA_CERTS",
]);

/** Whether a variable of the harness's environment reaches a run's processes without being passed. */
export function allowedByDefault(name: string): boolean {
  return ALLOWED.has(name) || name.startsWith("LC_");
}

/**
 * A PATH with only its absolute entries: an empty entry, `.`, `./x` or `x/bin` is looked up from the working
 * folder — the workdir, for a server or a check — so a repository's `./python` or `./cargo` would run for a
 * read-tier call.
 */
export function absolutePathEntries(value: string | undefined): string {
  return (value ?? "")
    .split(path.delimiter)
    .filter((entry) => path.isAbsolute(entry))
    .join(path.delimiter);
}

/** `base` by the allow-list and `pass` (and `extraPass`), PATH's relative entries dropped, then `set`. */
export function childEnvironment(
  base: NodeJS.ProcessEnv,
  policy: EnvPolicy = {},
  extraPass: readonly string[] = [],
): NodeJS.ProcessEnv {
  const keep = new Set([...(policy.pass ?? []), ...extraPass]);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (keep.has(name) || allowedByDefault(name))) env[name] = value;
  }
  if (env.PATH !== undefined) env.PATH = absolutePathEntries(env.PATH);
  const merged = { ...env, ...policy.set };
  if (merged.PATH !== undefined) merged.PATH = absolutePathEntries(merged.PATH);
  return merged;
}
