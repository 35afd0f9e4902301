// Checks opm applies to names and image references: k8s validation.IsDNS1123Label for package
// names, and docker-reference ParseNormalizedNamed (go.podman.io/image/v5/docker/reference with
// opencontainers/go-digest) for bundle and related images. Only validity and error texts.

import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from '../gocompat/index.ts';
import { msg } from './messages.ts';


/** validation.IsDNS1123Label: the list of problems (empty when valid). */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(msg.dnsLabelTooLong);
  if (!DNS1123_LABEL.test(value)) errs.push(DNS1123_SUBDOMAIN.test(value) ? msg.dnsLabelDots : msg.dnsLabelFormat);
  return errs;
}

// distribution/reference grammar. The separator is written `[-]+` rather than upstream's `[-]*`:
// the same language, without the ambiguity that makes a backtracking engine slow.
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX_IDENTIFIER = /^[a-f0-9]{64}$/;
const DIGEST_ANCHORED = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const NAME_TOTAL_LENGTH_MAX = 255;
const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO = 'library';

/** Registered digest algorithms and the hex length of their encoded part. */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domain: string;
  let remainder: string;
  const head = i === -1 ? '' : name.slice(0, i);
  if (i === -1 || (!/[.:]/.test(head) && head !== 'localhost' && head.toLowerCase() === head)) {
    domain = DEFAULT_DOMAIN;
    remainder = name;
  } else {
    domain = head;
    remainder = name.slice(i + 1);
  }
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = `${OFFICIAL_REPO}/${remainder}`;
  return [domain, remainder];
}

function validateDigest(d: string): string | undefined {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) return msg.digestInvalidFormat;
  const algorithm = d.slice(0, i);
  const encoded = d.slice(i + 1);
  const size = DIGEST_HEX_LENGTH[algorithm];
  if (size === undefined) return DIGEST_ANCHORED.test(d) ? msg.digestUnsupported : msg.digestInvalidFormat;
  if (encoded.length !== size) return msg.digestInvalidLength;
  return /^[a-f0-9]+$/.test(encoded) ? undefined : msg.digestInvalidFormat;
}

function parseReference(s: string): string | undefined {
  const m = REFERENCE.exec(s);
  if (m === null) {
    if (s === '') return msg.refNameEmpty;
    if (REFERENCE.test(s.toLowerCase())) return msg.refNameUppercase;
    return msg.refInvalidFormat;
  }
  if ((m[1] ?? '').length > NAME_TOTAL_LENGTH_MAX) return msg.refNameTooLong;
  if (m[3] !== undefined && m[3] !== '') return validateDigest(m[3]);
  return undefined;
}

/** reference.ParseNormalizedNamed: returns the error text, or undefined when `ref` is a valid pull spec. */
export function imageReferenceError(ref: string): string | undefined {
  if (HEX_IDENTIFIER.test(ref)) return msg.refHexIdentifier(ref);
  const [domain, remainder] = splitDockerDomain(ref);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName) return msg.refNormalizedUppercase;
  return parseReference(`${domain}/${remainder}`);
}
