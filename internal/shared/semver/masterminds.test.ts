import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MastermindsError,
  compareVersions,
  formatVersion,
  parseConstraints,
  parseMastermindsVersion,
} from './index.ts';
import type { ComparatorKind } from './index.ts';
// Upstream tests some steps below NewConstraint; these are imported by path for that.
import { evaluateComparator, parseComparator, rewriteHyphenRanges } from './masterminds-constraints.ts';
import { metadataProblem, prereleaseProblem } from './masterminds-version.ts';

const load = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8')) as T;

type CheckRow = [string, string, boolean];
type MessageRow = [string, string, string];
interface ConstraintsFixture {
  parseConstraint: { in: string; kind?: ComparatorKind; con?: string; error?: true }[];
  constraintCheck: CheckRow[];
  newConstraint: { in: string; ors?: number; count?: number; error?: true }[];
  constraintsCheck: CheckRow[];
  constraintsCheckIncludePrerelease: CheckRow[];
  rewriteRange: [string, string][];
  constraintsValidate: CheckRow[];
  constraintsValidateAllMessages: [string, string, string[]][];
  constraintsValidateFirstMessage: MessageRow[];
  constraintsValidateIncludePrerelease: CheckRow[];
  constraintsValidateIncludePrereleaseAllMessages: [string, string, string[]][];
  constraintsValidateIncludePrereleaseFirstMessage: MessageRow[];
  constraintString: [string, string][];
  textMarshal: [string, string][];
  textUnmarshal: [string, string][];
  fuzzSeeds: string[];
}
interface VersionFixture {
  newVersion: [string, boolean][];
  original: string[];
  parts: { in: string; major: number; minor: number; patch: number; prerelease: string; metadata: string };
  coerceString: [string, string][];
  compare: [string, string, number][];
  lessThan: CheckRow[];
  lessThanEqual: CheckRow[];
  greaterThan: CheckRow[];
  greaterThanEqual: CheckRow[];
  equal: CheckRow[];
  validatePrerelease: [string, string | null][];
  validateMetadata: [string, string | null][];
}

const cs = load<ConstraintsFixture>('masterminds-constraints.json');
const vs = load<VersionFixture>('masterminds-version.json');
const mv = parseMastermindsVersion;

const mmError = (f: () => unknown): MastermindsError => {
  try {
    f();
  } catch (e) {
    if (e instanceof MastermindsError) return e;
    throw e;
  }
  throw new Error('expected a MastermindsError');
};

describe('Masterminds NewVersion (version_test.go)', () => {
  it.each(vs.newVersion)('NewVersion(%j) fails: %s', (s, fails) => {
    if (fails) expect(mmError(() => mv(s)).code).toBe('MASTERMINDS_INVALID_VERSION');
    else expect(() => mv(s)).not.toThrow();
  });

  it.each(vs.original.map((s) => [s]))('keeps the original %j', (s) => {
    expect(mv(s).raw).toBe(s);
  });

  it('splits parts', () => {
    const { in: s, major, minor, patch, prerelease, metadata } = vs.parts;
    const v = mv(s);
    expect([v.major, v.minor, v.patch, v.prerelease.join('.'), v.build.join('.')]).toEqual([
      major,
      minor,
      patch,
      prerelease,
      metadata,
    ]);
  });

  it.each(vs.coerceString)('String() of NewVersion(%j) is %s', (s, want) => {
    expect(formatVersion(mv(s))).toBe(want);
  });

  it.each(vs.compare)('Compare(%s, %s) = %d', (a, b, want) => {
    expect(compareVersions(mv(a), mv(b))).toBe(want);
  });

  const relations: [string, CheckRow[], (c: number) => boolean][] = [
    ['LessThan', vs.lessThan, (c) => c < 0],
    ['LessThanEqual', vs.lessThanEqual, (c) => c <= 0],
    ['GreaterThan', vs.greaterThan, (c) => c > 0],
    ['GreaterThanEqual', vs.greaterThanEqual, (c) => c >= 0],
    ['Equal', vs.equal, (c) => c === 0],
  ];
  for (const [name, rows, rel] of relations) {
    it.each(rows)(`${name}(%s, %s) = %s`, (a, b, want) => {
      expect(rel(compareVersions(mv(a), mv(b)))).toBe(want);
    });
  }

  it.each(vs.validatePrerelease)('prerelease %j: %s', (pre, want) => {
    expect(prereleaseProblem(pre)).toBe(want ?? undefined);
  });

  it.each(vs.validateMetadata)('metadata %j: %s', (meta, want) => {
    expect(metadataProblem(meta)).toBe(want ?? undefined);
  });

  it.each([
    ['foo', 'invalid semantic version'],
    ['1.2.3-alpha.01', 'version segment starts with 0'],
    ['1.0.0-alpha_beta', 'invalid semantic version'],
    [
      '18446744073709551616.0.0',
      'error parsing version segment: strconv.ParseUint: parsing "18446744073709551616": value out of range',
    ],
  ])('NewVersion(%j) fails with %s', (s, message) => {
    expect(mmError(() => mv(s)).message).toBe(message);
  });

  it('coerces leading zeros and short forms', () => {
    expect(formatVersion(mv('01.02.03'))).toBe('1.2.3');
    expect(formatVersion(mv('v2'))).toBe('2.0.0');
  });
});

describe('Masterminds parseConstraint (TestParseConstraint)', () => {
  it.each(cs.parseConstraint.map((r) => [r.in, r]))('%j', (_, row) => {
    if (row.error) {
      expect(mmError(() => parseComparator(row.in)).message).toBe(`improper constraint: ${JSON.stringify(row.in)}`);
      return;
    }
    const c = parseComparator(row.in);
    expect(c.kind).toBe(row.kind);
    expect(formatVersion(c.con)).toBe(row.con);
  });
});

describe('Masterminds single constraint check (TestConstraintCheck)', () => {
  // Upstream runs these through parseConstraint + check(v, hasPre), i.e. below NewConstraint; the three
  // "" rows only exist at this level (NewConstraint rejects "": see the quirks tests).
  it.each(cs.constraintCheck)('%j against %s is %s', (constraint, version, want) => {
    const c = parseComparator(constraint);
    const includePre = c.con.prerelease.length > 0;
    expect(evaluateComparator(c, mv(version), includePre) === undefined).toBe(want);
  });
});

describe('Masterminds NewConstraint (TestNewConstraint)', () => {
  it.each(cs.newConstraint.map((r) => [r.in, r]))('%j', (_, row) => {
    if (row.error) {
      expect(mmError(() => parseConstraints(row.in)).code).toBe('MASTERMINDS_INVALID_CONSTRAINT');
      return;
    }
    const c = parseConstraints(row.in);
    expect(c.groups.length).toBe(row.ors);
    expect(c.groups[0]?.length).toBe(row.count);
  });

  it.each(cs.fuzzSeeds.map((s) => [s]))('fuzz seed %j parses or fails with a MastermindsError', (s) => {
    try {
      parseConstraints(s);
    } catch (e) {
      expect(e).toBeInstanceOf(MastermindsError);
    }
  });
});

describe('Masterminds Constraints.Check (TestConstraintsCheck)', () => {
  it.each(cs.constraintsCheck)('%j against %s is %s', (constraint, version, want) => {
    expect(parseConstraints(constraint).check(mv(version))).toBe(want);
  });
});

describe('Masterminds Constraints.Check with IncludePrerelease (TestConstraintsCheckIncludePrerelease)', () => {
  it.each(cs.constraintsCheckIncludePrerelease)('%j against %s is %s', (constraint, version, want) => {
    expect(parseConstraints(constraint, { includePrerelease: true }).check(mv(version))).toBe(want);
  });
});

describe('Masterminds hyphen range rewriting (TestRewriteRange)', () => {
  it.each(cs.rewriteRange)('%j', (s, want) => {
    expect(rewriteHyphenRanges(s)).toBe(want);
  });
});

describe('Masterminds Constraints.Validate (TestConstraintsValidate)', () => {
  const variants = [
    ['', false, cs.constraintsValidate, cs.constraintsValidateAllMessages, cs.constraintsValidateFirstMessage],
    [
      ' with IncludePrerelease',
      true,
      cs.constraintsValidateIncludePrerelease,
      cs.constraintsValidateIncludePrereleaseAllMessages,
      cs.constraintsValidateIncludePrereleaseFirstMessage,
    ],
  ] as const;

  for (const [label, includePrerelease, checks, all, first] of variants) {
    it.each(checks)(`validate${label}: %j against %s is %s`, (constraint, version, want) => {
      const c = parseConstraints(constraint, { includePrerelease });
      const result = c.validate(mv(version));
      expect(result.ok).toBe(want);
      expect(result.ok).toBe(c.check(mv(version)));
      if (!want) expect(result.reasons.length).toBeGreaterThan(0);
      else expect(result.reasons).toEqual([]);
    });

    it.each(all)(`validate${label}: %j against %s gives all reasons`, (constraint, version, want) => {
      const c = parseConstraints(constraint, { includePrerelease });
      expect(c.validate(mv(version)).reasons).toEqual(want);
    });

    it.each(first)(`validate${label}: %j against %s first reason is %j`, (constraint, version, want) => {
      const c = parseConstraints(constraint, { includePrerelease });
      expect(c.validate(mv(version)).reasons[0]).toBe(want);
    });
  }
});

describe('Masterminds Constraints.String (TestConstraintString, TestTextMarshal/Unmarshal)', () => {
  it.each(cs.constraintString)('%j prints as %j and reparses', (s, want) => {
    const c = parseConstraints(s);
    expect(c.toString()).toBe(want);
    expect(() => parseConstraints(c.toString())).not.toThrow();
  });

  it.each([...cs.textMarshal, ...cs.textUnmarshal])('%j prints as %j', (s, want) => {
    expect(String(parseConstraints(s))).toBe(want);
  });
});

describe('Masterminds constraint errors', () => {
  it.each([
    ['', 'improper constraint: ""'],
    ['>= bar', 'improper constraint: ">= bar"'],
    ['>=1.0.0 || ', 'improper constraint: " "'],
    ['!1.2.3', 'improper constraint: "!1.2.3"'],
    ['==1.2.3', 'improper constraint: "==1.2.3"'],
    ['> =1.0.0', 'improper constraint: "> =1.0.0"'],
    ['>=1.0.0,, <2', 'improper constraint: ">=1.0.0,, <2"'],
    ['1.2.3,', 'improper constraint: "1.2.3,"'],
    ['>=5.0.0 <5.1.2 !5.1.0-alpha1', 'improper constraint: ">=5.0.0 <5.1.2 !5.1.0-alpha1"'],
    // a hyphen range is rewritten before splitting, and the message shows the rewritten group
    ['>=1.0.0 - 2.0.0', 'improper constraint: ">=>= 1.0.0, <= 2.0.0 "'],
    // the version grammar admits these, NewVersion then refuses them
    ['1.2.3-01', 'constraint parser error'],
    ['xx', 'constraint parser error'],
    ['1|2', 'constraint parser error'],
    ['>=99999999999999999999', 'constraint parser error'],
  ])('NewConstraint(%j) fails with %j', (s, message) => {
    const e = mmError(() => parseConstraints(s));
    expect(e.message).toBe(message);
    expect(e.code).toBe('MASTERMINDS_INVALID_CONSTRAINT');
    expect(e.input).toBe(s);
  });

  it('accepts the Go whitespace set but not vertical tab or NBSP', () => {
    expect(parseConstraints('>=1.0.0\t\n\f\r<2.0.0').check(mv('1.5.0'))).toBe(true);
    expect(() => parseConstraints('>=1.0.0\v<2.0.0')).toThrow(MastermindsError);
    expect(() => parseConstraints('>=1.0.0\u00a0<2.0.0')).toThrow(MastermindsError);
  });
});
