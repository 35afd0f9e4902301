// Registry credentials and the Docker Registry v2 auth challenge.
//
// Credentials come from a docker `config.json` (`{"auths": {"<key>": {"auth": base64(user:pass)}}}`,
// or `username`/`password`, `identitytoken`, `registrytoken`), from the data of a
// `kubernetes.io/dockerconfigjson` Secret (`.dockerconfigjson`, base64) or a legacy
// `kubernetes.io/dockercfg` one (`.dockercfg`, a bare map of keys). Keys are normalised
// (`https://index.docker.io/v1/` → `docker.io`, scheme and `/v1/`-style suffixes dropped) and
// looked up most specific first: `host/ns/repo`, `host/ns`, `host`.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ImageError } from './errors.ts';

export interface Credential {
  readonly username?: string;
  readonly password?: string;
  /** OAuth2 refresh token (`identitytoken`), exchanged at the token endpoint. */
  readonly identityToken?: string;
  /** A bearer token sent as is (`registrytoken`). */
  readonly registryToken?: string;
}

export interface CredentialProvider {
  /** Credentials for `domain/path` (the normalised reference name parts), or undefined. */
  lookup(domain: string, path: string): Credential | undefined;
}

export const anonymous: CredentialProvider = { lookup: () => undefined };

interface DockerAuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
  registrytoken?: unknown;
}

/** Normalises an auths key: drops the scheme, a trailing `/` and `/v1`/`/v2`; maps Docker Hub to docker.io. */
export function normalizeAuthKey(key: string): string {
  let k = key.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  k = k.replace(/\/+$/, '').replace(/\/v[12]$/, '').replace(/\/+$/, '');
  const slash = k.indexOf('/');
  const host = (slash === -1 ? k : k.slice(0, slash)).toLowerCase();
  const rest = slash === -1 ? '' : k.slice(slash);
  const mapped = host === 'index.docker.io' || host === 'registry-1.docker.io' ? 'docker.io' : host;
  return mapped + rest;
}

function decodeEntry(key: string, entry: DockerAuthEntry, source: string): Credential | undefined {
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  let username = str(entry.username);
  let password = str(entry.password);
  const auth = str(entry.auth);
  if (auth !== undefined) {
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) {
      throw new ImageError('InvalidCredentials', `${source}: auths[${JSON.stringify(key)}].auth is not base64 of "user:password"`, {
        terminal: true,
      });
    }
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  const all = { username, password, identityToken: str(entry.identitytoken), registryToken: str(entry.registrytoken) };
  const out: Credential = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
  return Object.keys(out).length ? out : undefined;
}

/** Credentials keyed by normalised registry key, the most specific key first. */
function keyedCredentials(byKey: ReadonlyMap<string, Credential>): CredentialProvider {
  return {
    lookup(domain, path) {
      const host = normalizeAuthKey(domain);
      const parts = path.split('/');
      for (let i = parts.length; i >= 0; i--) {
        const cred = byKey.get(i === 0 ? host : `${host}/${parts.slice(0, i).join('/')}`);
        if (cred) return cred;
      }
      return undefined;
    },
  };
}

/**
 * Parses docker `config.json` text (or the already-parsed object): `{"auths": {...}}`, or the
 * legacy `.dockercfg` bare map. `source` names it in error messages.
 */
export function parseDockerConfig(config: string | object, source = 'docker config'): CredentialProvider {
  let parsed: unknown = config;
  if (typeof config === 'string') {
    try {
      parsed = JSON.parse(config);
    } catch (err) {
      throw new ImageError('InvalidCredentials', `${source}: not valid JSON: ${(err as Error).message}`, { terminal: true });
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ImageError('InvalidCredentials', `${source}: expected a JSON object`, { terminal: true });
  }
  const obj = parsed as Record<string, unknown>;
  const auths = 'auths' in obj ? obj.auths : obj;
  const byKey = new Map<string, Credential>();
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) {
    throw new ImageError('InvalidCredentials', `${source}: "auths" must be an object`, { terminal: true });
  }
  for (const [key, entry] of Object.entries(auths as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const cred = decodeEntry(key, entry as DockerAuthEntry, source);
    if (cred) byKey.set(normalizeAuthKey(key), cred);
  }
  return keyedCredentials(byKey);
}

/**
 * Credentials from a pull Secret's `data` (values base64, as the API returns them):
 * `.dockerconfigjson` (type kubernetes.io/dockerconfigjson) or `.dockercfg` (kubernetes.io/dockercfg).
 */
export function credentialsFromSecretData(data: Readonly<Record<string, string>>, source = 'pull secret'): CredentialProvider {
  const json = data['.dockerconfigjson'] ?? data['.dockercfg'];
  if (json === undefined) {
    throw new ImageError('InvalidCredentials', `${source}: has neither ".dockerconfigjson" nor ".dockercfg"`, { terminal: true });
  }
  return parseDockerConfig(Buffer.from(json, 'base64').toString('utf8'), source);
}

/**
 * The credential files a user's docker and podman logins write, in the order they are asked:
 * `$REGISTRY_AUTH_FILE`, `$DOCKER_CONFIG/config.json` when DOCKER_CONFIG is set,
 * `$XDG_RUNTIME_DIR/containers/auth.json`, then `~/.docker/config.json` (DOCKER_CONFIG unset).
 */
export function userCredentialFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  const files: string[] = [];
  if (env.REGISTRY_AUTH_FILE) files.push(env.REGISTRY_AUTH_FILE);
  if (env.DOCKER_CONFIG) files.push(join(env.DOCKER_CONFIG, 'config.json'));
  if (env.XDG_RUNTIME_DIR) files.push(join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json'));
  if (!env.DOCKER_CONFIG) files.push(join(env.HOME || homedir(), '.docker', 'config.json'));
  return files;
}

/** The credentials of `userCredentialFiles(env)`; missing files are skipped, unreadable ones throw. */
export async function loadUserCredentials(env: Readonly<Record<string, string | undefined>>): Promise<CredentialProvider> {
  const providers: CredentialProvider[] = [];
  for (const file of userCredentialFiles(env)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new ImageError('InvalidCredentials', `${file}: ${(err as Error).message}`, { terminal: true });
    }
    providers.push(parseDockerConfig(text, file));
  }
  return chainCredentials(...providers);
}

/** The first provider that has credentials wins. */
export function chainCredentials(...providers: readonly (CredentialProvider | undefined)[]): CredentialProvider {
  const list = providers.filter((p): p is CredentialProvider => p !== undefined);
  return {
    lookup: (domain, path) => {
      for (const p of list) {
        const c = p.lookup(domain, path);
        if (c) return c;
      }
      return undefined;
    },
  };
}

export interface Challenge {
  /** Lower-case scheme: `bearer`, `basic`. */
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parses `WWW-Authenticate` (RFC 7235): one or more challenges, each a scheme followed by
 * comma-separated `key=value` / `key="quoted \" value"` parameters.
 */
export function parseChallenges(header: string): Challenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  let i = 0;
  const n = header.length;
  const skipWs = (): void => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < n && /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(header[i] ?? '')) i++;
    return header.slice(start, i);
  };
  while (i < n) {
    skipWs();
    while (i < n && header[i] === ',') {
      i++;
      skipWs();
    }
    const scheme = token();
    if (!scheme) break;
    const challenge = { scheme: scheme.toLowerCase(), params: {} as Record<string, string> };
    out.push(challenge);
    for (;;) {
      skipWs();
      const save = i;
      const key = token();
      skipWs();
      if (!key || header[i] !== '=') {
        i = save; // the next challenge's scheme (or the end)
        break;
      }
      i++;
      skipWs();
      let value = '';
      if (header[i] === '"') {
        i++;
        while (i < n && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < n) i++;
          value += header[i];
          i++;
        }
        i++;
      } else {
        const start = i;
        while (i < n && header[i] !== ',' && header[i] !== ' ') i++;
        value = header.slice(start, i);
      }
      challenge.params[key.toLowerCase()] = value;
      skipWs();
      if (header[i] === ',') i++;
      else break;
    }
    if (i === n) break;
    if (header[i] !== ',' && !/[A-Za-z]/.test(header[i] ?? '')) i++;
  }
  return out;
}
