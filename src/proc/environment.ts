/**
 * The environment every process of a run starts with: the harness's own, less what looks like a credential
 * (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, cloud keys, tokens, passwords) — a cell's `os.environ`, a debuggee, a
 * language server or a worker would otherwise hold them all. What the harness wants to give, it names: `pass`
 * keeps names that would be dropped, `set` adds or overrides values.
 */

export interface EnvPolicy {
  /** Names kept although they look like credentials (exact names). */
  readonly pass?: readonly string[];
  /** Values every child gets (after the drop, so a credential given here arrives). */
  readonly set?: Readonly<Record<string, string>>;
}

/** Names that carry secrets, or reach them (an SSH or GPG agent). */
const CREDENTIAL = [
  /(^|_)(API_?KEY|ACCESS_?KEY|SECRET|SECRET_?KEY|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|PRIVATE_?KEY|AUTH)(_|$)/i,
  /PASSWORD/i,
  /^(AWS|AZURE|GOOGLE|GCP|GCLOUD|CLOUDSDK|DIGITALOCEAN|HEROKU|VAULT|DOCKER_AUTH|KUBECONFIG)(_|$)/i,
  /_(DSN|DATABASE_URL)$/i,
  /^(DATABASE|REDIS|MONGO(DB)?|POSTGRES|MYSQL|AMQP)_URL$/i,
  /^(SSH_AUTH_SOCK|GPG_AGENT_INFO|NETRC)$/,
];

export function looksLikeCredential(name: string): boolean {
  return CREDENTIAL.some((pattern) => pattern.test(name));
}

/** `base` less credentials (except `pass` and `extraPass`), then `set`. */
export function childEnvironment(
  base: NodeJS.ProcessEnv,
  policy: EnvPolicy = {},
  extraPass: readonly string[] = [],
): NodeJS.ProcessEnv {
  const keep = new Set([...(policy.pass ?? []), ...extraPass]);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (keep.has(name) || !looksLikeCredential(name))) env[name] = value;
  }
  return { ...env, ...policy.set };
}
