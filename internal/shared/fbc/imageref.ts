// The check opm applies to image references: docker-reference ParseNormalizedNamed
// (go.podman.io/image/v5/docker/reference with opencontainers/go-digest) for bundle and related
// images. Only validity and error texts.

import {
  DOCKER_HEX_IDENTIFIER as HEX_IDENTIFIER,
  DOCKER_NAME_TOTAL_LENGTH_MAX as NAME_TOTAL_LENGTH_MAX,
  DOCKER_REFERENCE as REFERENCE,
  splitDockerDomain,
} from '../gocompat/index.ts';
import { msg } from './messages.ts';

const DIGEST_ANCHORED = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** Registered digest algorithms and the hex length of their encoded part. */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

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
