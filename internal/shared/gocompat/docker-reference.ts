// github.com/distribution/reference's grammar and ParseNormalizedNamed's docker.io defaults, written once for the
// image puller (`../image/reference.ts`) and opm's check of bundle and related images (`../fbc/imageref.ts`); each
// words its own errors. The separator is written `[-]+` rather than upstream's `[-]*`: the same language, without the
// ambiguity that makes a backtracking engine slow.

export const DOCKER_DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO = 'library';
/** The longest repository path (without the domain). */
export const DOCKER_NAME_TOTAL_LENGTH_MAX = 255;

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';

/** `[domain/]path[:tag][@digest]`, anchored; groups: 1 the name (`[domain/]path`), 2 the tag, 3 the digest. */
export const DOCKER_REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${REMOTE_NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
/** `[domain/]path`, anchored; groups: 1 the domain, 2 the path. */
export const DOCKER_NAME = new RegExp(`^(?:(${DOMAIN})/)?(${REMOTE_NAME})$`);
/** 64 hex digits: an image ID, which ParseNormalizedNamed refuses as a repository name. */
export const DOCKER_HEX_IDENTIFIER = /^[a-f0-9]{64}$/;

/**
 * splitDockerDomain: `[domain, remainder]`. The first path component is the domain when it contains `.` or `:`, is
 * `localhost`, or has an upper-case letter; otherwise the domain is docker.io (index.docker.io counts as docker.io),
 * and a single-component docker.io path gets `library/` in front.
 */
export function splitDockerDomain(name: string): [string, string] {
  const slash = name.indexOf('/');
  const head = slash === -1 ? '' : name.slice(0, slash);
  const isDomain = slash !== -1 && (head === 'localhost' || /[.:]/.test(head) || head.toLowerCase() !== head);
  const domain = !isDomain || head === LEGACY_DEFAULT_DOMAIN ? DOCKER_DEFAULT_DOMAIN : head;
  const remainder = isDomain ? name.slice(slash + 1) : name;
  return [domain, domain === DOCKER_DEFAULT_DOMAIN && !remainder.includes('/') ? `${OFFICIAL_REPO}/${remainder}` : remainder];
}
