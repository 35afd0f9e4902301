// OpenShift upgrade gating: versions and `olm.maxOpenShiftVersion` under classic OLM's and OLM v1's rules. See
// README.md.
export type { ClassicSkew, OcpMinor, RawProperty } from './version.ts';
export {
  CLASSIC_BLOCKING_HEADER,
  MAX_OPENSHIFT_VERSION_PROPERTY,
  classicBlockingMessage,
  classicBlocks,
  classicMaxOpenShiftVersion,
  classicReleaseVersion,
  formatMinor,
  nextMinor,
  nextY,
  normalize,
  v1AllowedVersion,
  v1BlockingMessage,
  v1Compatible,
  v1CurrentMinor,
  v1MaxOpenShiftVersion,
  v1NextMinorText,
} from './version.ts';
