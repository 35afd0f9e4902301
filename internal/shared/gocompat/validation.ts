// k8s.io/apimachinery/pkg/util/validation: the DNS-1123 name rules and their exact messages, once for every
// folder that checks a Kubernetes name (catalog names, namespaces, image references, flags).

import { goLen } from './go.ts';

export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
export const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** validation.RegexError (its double space between examples included). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/** validation.MaxLenError. */
export const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.IsDNS1123Label: the problems with `value` (empty when it is valid). */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (goLen(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    // Newer apimachinery says so when the value would be a valid subdomain.
    errs.push(DNS1123_SUBDOMAIN.test(value) ? 'must not contain dots' : regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** validation.IsDNS1123Subdomain: the problems with `value` (empty when it is valid). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (goLen(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}
