// Go and Kubernetes compatibility helpers: the one home for Go's string quoting and trimming and apimachinery's
// name validation. See README.md.
export { goJSONString, goJSONValue } from './json.ts';
export type { GoJSONValue } from './json-decode.ts';
export { GoJSONSyntaxError, goJSONField, goJSONParse } from './json-decode.ts';
export {
  DOCKER_DEFAULT_DOMAIN,
  DOCKER_HEX_IDENTIFIER,
  DOCKER_NAME,
  DOCKER_NAME_TOTAL_LENGTH_MAX,
  DOCKER_REFERENCE,
  splitDockerDomain,
} from './docker-reference.ts';
export { formatGoDuration, humanDuration, parseGoDuration } from './duration.ts';
export { goLen, goQuote, goSplitN, goStringSlice, goTrimSpace, isGoSpace } from './go.ts';
export {
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  DNS1123_SUBDOMAIN_FMT,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  maxLenError,
  regexError,
} from './validation.ts';
