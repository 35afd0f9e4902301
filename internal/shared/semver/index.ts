// Public surface of internal/shared/semver: two version-range engines (blang v4 for skipRange and
// versionRange, Masterminds v3 for ClusterExtension spec.source.catalog.version) over one Version type.

export type { Version } from './version.ts';
export { compareVersions, comparePrerelease, formatVersion, makeVersion } from './version.ts';

export type { BlangRange } from './blang.ts';
export { blangPrereleaseError, parseBlang, parseBlangRange, parseTolerant, tryParseBlang } from './blang.ts';

export { parseMastermindsVersion } from './masterminds-version.ts';
export type {
  Comparator,
  ComparatorKind,
  ConstraintOptions,
  Constraints,
  ConstraintValidation,
} from './masterminds-constraints.ts';
export { parseConstraints } from './masterminds-constraints.ts';

export type { SemverErrorCode } from './errors.ts';
export { BlangError, MastermindsError, SemverError } from './errors.ts';
