// Image references, parsed like github.com/distribution/reference ParseDockerRef:
//
//   busybox                        → docker.io/library/busybox:latest
//   quay.io/ns/cat:v4.18           → domain quay.io, path ns/cat, tag v4.18
//   localhost:5000/x@sha256:<hex>  → digest reference
//   r.io/x:v1@sha256:<hex>         → tag and digest; the digest is what gets pulled
//
// The first path component is a registry host when it contains `.` or `:`, is `localhost`, or
// has an upper-case letter; otherwise the reference is on docker.io, and a single-component
// docker.io path gets `library/` in front. Errors read `error parsing image reference "<ref>": …`.
import {
  DOCKER_DEFAULT_DOMAIN as DEFAULT_DOMAIN,
  DOCKER_HEX_IDENTIFIER as IDENTIFIER_RE,
  DOCKER_NAME as NAME_RE,
  DOCKER_NAME_TOTAL_LENGTH_MAX as NAME_TOTAL_LENGTH_MAX,
  DOCKER_REFERENCE as REFERENCE_RE,
  splitDockerDomain,
} from '../gocompat/index.ts';
import { digestProblem } from './digest.ts';
import { InvalidReferenceError } from './errors.ts';

/** Where the docker.io API actually lives. */
const DOCKER_HUB_API_HOST = 'registry-1.docker.io';

export interface ImageReference {
  /** Registry as written after normalisation: `docker.io`, `quay.io`, `127.0.0.1:5000`. */
  readonly domain: string;
  /** Repository path inside the registry: `library/busybox`, `ns/catalog`. */
  readonly path: string;
  /** `domain/path`. */
  readonly name: string;
  readonly tag?: string;
  readonly digest?: string;
}

/** Parses `ref` with docker.io defaults; a reference with neither tag nor digest gets `latest`. */
export function parseReference(ref: string): ImageReference {
  if (IDENTIFIER_RE.test(ref)) {
    throw new InvalidReferenceError(ref, `invalid repository name (${ref}), cannot specify 64-byte hexadecimal strings`);
  }
  const [domain, remainder] = splitDockerDomain(ref);
  const tagSep = remainder.indexOf(':');
  const remote = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remote.toLowerCase() !== remote) {
    throw new InvalidReferenceError(ref, `invalid reference format: repository name (${remote}) must be lowercase`);
  }
  const full = `${domain}/${remainder}`;
  const m = REFERENCE_RE.exec(full);
  if (!m) {
    if (REFERENCE_RE.test(full.toLowerCase())) throw new InvalidReferenceError(ref, 'repository name must be lowercase');
    throw new InvalidReferenceError(ref, 'invalid reference format');
  }
  const [, name = '', tag, digest] = m;
  const nm = NAME_RE.exec(name);
  const path = nm?.[2] ?? name;
  if (path.length > NAME_TOTAL_LENGTH_MAX) {
    throw new InvalidReferenceError(ref, `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  }
  if (digest !== undefined) {
    const problem = digestProblem(digest);
    if (problem) throw new InvalidReferenceError(ref, problem);
  }
  return {
    domain,
    path,
    name: `${domain}/${path}`,
    ...(tag !== undefined || digest === undefined ? { tag: tag ?? 'latest' } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

/** `name[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  return `${ref.name}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/** `name@digest`: the canonical, immutable form of a pulled image. */
export const canonicalReference = (ref: Pick<ImageReference, 'name'>, digest: string): string => `${ref.name}@${digest}`;

/** The host (and port) the registry API is reached at: docker.io is served by registry-1.docker.io. */
export const registryApiHost = (domain: string): string => (domain === DEFAULT_DOMAIN ? DOCKER_HUB_API_HOST : domain);
