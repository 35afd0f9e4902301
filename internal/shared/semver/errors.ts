// Every error this package throws. Messages are the upstream libraries' own texts, so they can be
// shown to users and compared with upstream OLM output; match on `code` in code, not on the text.

export type SemverErrorCode =
  /** blang/semver v4 Parse or ParseTolerant rejected a version. */
  | 'BLANG_INVALID_VERSION'
  /** blang/semver v4 ParseRange rejected a range. */
  | 'BLANG_INVALID_RANGE'
  /**
   * A blang range reached an empty OR group while being evaluated (`a || || b`): upstream ParseRange
   * accepts it and the Go program panics with a nil function call when it gets there.
   */
  | 'BLANG_RANGE_PANIC'
  /** Masterminds/semver v3 NewVersion rejected a version. */
  | 'MASTERMINDS_INVALID_VERSION'
  /** Masterminds/semver v3 NewConstraint rejected a constraint. */
  | 'MASTERMINDS_INVALID_CONSTRAINT';

export class SemverError extends Error {
  readonly code: SemverErrorCode;
  /** The string that was being parsed. */
  readonly input: string;

  constructor(code: SemverErrorCode, message: string, input: string) {
    super(message);
    this.name = 'SemverError';
    this.code = code;
    this.input = input;
  }
}

/** Thrown by the blang engine (`parseBlang`, `parseTolerant`, `parseBlangRange`). */
export class BlangError extends SemverError {
  constructor(
    code: 'BLANG_INVALID_VERSION' | 'BLANG_INVALID_RANGE' | 'BLANG_RANGE_PANIC',
    message: string,
    input: string,
  ) {
    super(code, message, input);
    this.name = 'BlangError';
  }
}

/** Thrown by the Masterminds engine (`parseMastermindsVersion`, `parseConstraints`, ...). */
export class MastermindsError extends SemverError {
  constructor(code: 'MASTERMINDS_INVALID_VERSION' | 'MASTERMINDS_INVALID_CONSTRAINT', message: string, input: string) {
    super(code, message, input);
    this.name = 'MastermindsError';
  }
}
