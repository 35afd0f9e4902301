// Failing fast in `--wait`: the causes operator-controller reports that waiting will not fix — a terminal
// Progressing (False: Blocked, InvalidConfiguration, ProgressDeadlineExceeded) or a retried error that only a change
// by someone can end (a package, version or channel the catalogs do not have, a missing namespace or service account,
// an object another owner holds, an image that does not exist). `--wait` gives up on one once it has stayed for two
// reconciles, and names the command to run next.
import type { ClusterCatalog, ClusterExtension } from '../../api/v1/index.ts';
import { ReasonBlocked, ReasonInvalidConfiguration, ReasonProgressDeadlineExceeded, ReasonSucceeded, TypeProgressing } from '../../api/v1/index.ts';
import type { Condition } from '../../api/meta/v1.ts';
import { oneLine, realClock } from '../shared/toolkit/index.ts';

/** A cause waiting will not fix, and what to run next. */
export interface Unfixable {
  /** The controller's message, one line. */
  readonly cause: string;
  /** Commands to run next, most useful first. */
  readonly next: readonly string[];
}

const TERMINAL_REASONS: readonly string[] = [ReasonBlocked, ReasonInvalidConfiguration, ReasonProgressDeadlineExceeded];

/** Text in a retried Progressing message that only a change by someone can end. */
const UNFIXABLE_TEXT: readonly RegExp[] = [
  /no bundles found for package /,
  /found bundles for package .* in multiple catalogs with the same priority/,
  /desired version range .* is invalid/,
  /desired catalog selector is invalid/,
  /installation cannot proceed due to missing ServiceAccount/,
  /\bnamespaces? "[^"]*" not found/,
  /already exists .*cannot be managed by operator-controller/,
  /\bmanifest unknown\b|\bname unknown\b|\brepository .* not found\b|\bno such host\b|\bENOTFOUND\b/,
];

/** An argument as a shell needs it quoted. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * What to run next for `cause`: for a version or channel the catalogs lack, `upgrade` with another (and where to see
 * what there is); for a package they lack, `search` and `uninstall`; for a missing service account, its creation.
 * (`kubectl olm status` is always suggested by the caller.)
 */
export function nextCommands(ext: ClusterExtension, cause: string): string[] {
  const name = ext.metadata?.name ?? '';
  const pkg = ext.spec?.source.catalog?.packageName ?? '';
  const ns = ext.spec?.namespace ?? '';
  const out: string[] = [];
  if (/no bundles found for package /.test(cause)) {
    const spec = ext.spec?.source.catalog;
    if (spec?.version || (spec?.channels?.length ?? 0) > 0) {
      out.push(`kubectl olm list-available ${shellQuote(pkg)}`);
      out.push(`kubectl olm upgrade ${shellQuote(name)} ${spec?.version ? '--version <range>' : '--channel <name>'}`);
      // From the installed version the graph does not lead there (a downgrade, say): only --force goes anyway.
      if (/^error upgrading from currently installed version/.test(cause) && spec?.version && spec.upgradeConstraintPolicy !== 'SelfCertified') {
        out.push(`kubectl olm upgrade ${shellQuote(name)} --version ${shellQuote(spec.version)} --force`);
      }
    } else {
      out.push(`kubectl olm search ${shellQuote(pkg)}`);
      out.push(`kubectl olm uninstall ${shellQuote(name)}`);
    }
  } else if (/desired version range/.test(cause)) {
    out.push(`kubectl olm upgrade ${shellQuote(name)} --version <range>`);
  } else if (/missing ServiceAccount/.test(cause)) {
    const sa = ext.spec?.serviceAccount?.name ?? '<name>';
    out.push(`kubectl create serviceaccount ${shellQuote(sa)} -n ${shellQuote(ns)}`);
  } else if (/already exists .*cannot be managed by operator-controller/.test(cause)) {
    // Another owner holds the object (a CRD left by OLM classic, say): see who before deleting it.
    const m = /^(?:.*: )?([A-Za-z]+) '([^']+)' already exists in namespace '([^']*)'/.exec(cause);
    if (m) out.push(`kubectl get ${m[1]!.toLowerCase()} ${shellQuote(m[2]!)}${m[3] ? ` -n ${shellQuote(m[3])}` : ''} -o yaml`);
  } else if (/\bnamespaces? "[^"]*" not found/.test(cause)) {
    out.push(`kubectl create namespace ${shellQuote(ns)}`);
  }
  return out;
}

/**
 * An extension's or catalog's Progressing condition when it reports, for the spec at `generation` (its
 * observedGeneration has caught up with it), a cause waiting will not fix: terminal, or a retried UNFIXABLE_TEXT.
 */
function unfixableProgressing(obj: ClusterExtension | ClusterCatalog | undefined, generation: number): Condition | undefined {
  const p = obj?.status?.conditions?.find((c) => c.type === TypeProgressing);
  if (!p || p.reason === ReasonSucceeded || (p.observedGeneration ?? 0) < generation) return undefined;
  const terminal = p.status === 'False' && TERMINAL_REASONS.includes(p.reason);
  return terminal || UNFIXABLE_TEXT.some((re) => re.test(p.message)) ? p : undefined;
}

/** The cause waiting will not fix that the extension reports for the spec at `generation`, or undefined. */
export function unfixable(ext: ClusterExtension | undefined, generation: number): Unfixable | undefined {
  const p = unfixableProgressing(ext, generation);
  if (!ext || !p) return undefined;
  const cause = oneLine(p.message) || p.reason;
  const withName = /missing ServiceAccount/.test(cause) && ext.spec?.serviceAccount?.name ? `${cause} "${ext.spec.serviceAccount.name}" in namespace "${ext.spec.namespace}"` : cause;
  return { cause: withName, next: nextCommands(ext, cause) };
}

/** The line `--wait` prints after giving up on a cause: that waiting will not fix it, and the commands to run next. */
export function unfixableLine(u: Unfixable): string {
  const next = u.next.map((c) => `\`${c}\``).join(' or ');
  return `waiting will not fix this (--wait-for-fix waits anyway)${next ? `; next: ${next}` : ''}\n`;
}

/** How long a cause must stay, and on how many reads, before `--wait` gives up on it: two reconciles. */
export const FAIL_FAST_AFTER_MS = 2_000;
export const FAIL_FAST_READS = 2;

/**
 * Tracks one cause across reads: it must stay the same for FAIL_FAST_READS reads spanning FAIL_FAST_AFTER_MS — a
 * first reconcile's error the next one clears (a cache not yet synced) is not reported.
 */
export class CauseTracker {
  private cause: string | undefined;
  private since = 0;
  private reads = 0;
  private readonly afterMs: number;
  private readonly now: () => number;
  constructor(afterMs = FAIL_FAST_AFTER_MS, now: () => number = () => realClock.date().getTime()) {
    this.afterMs = afterMs;
    this.now = now;
  }

  /** The cause when it has stayed long enough, else undefined. */
  observe(u: Unfixable | undefined): Unfixable | undefined {
    if (u?.cause !== this.cause) {
      this.cause = u?.cause;
      this.since = this.now();
      this.reads = 0;
    }
    if (!u) return undefined;
    this.reads++;
    return this.reads >= FAIL_FAST_READS && this.now() - this.since >= this.afterMs ? u : undefined;
  }
}

/** `--wait`'s give-up test over `cause`: a cause kept for two reconciles (CauseTracker); none with --wait-for-fix. */
export function giveUpOn<T>(waitForFix: boolean | undefined, cause: (obj: T | undefined) => Unfixable | undefined): ((obj: T | undefined) => Unfixable | undefined) | undefined {
  if (waitForFix) return undefined;
  const tracker = new CauseTracker();
  return (obj) => tracker.observe(cause(obj));
}

/**
 * The cause waiting will not fix that catalogd reports for a ClusterCatalog's spec at `generation`: a terminal
 * Progressing (Blocked: an image reference that cannot be pulled as written) or a retried pull of an image or host that
 * does not exist.
 */
export function unfixableCatalog(cat: ClusterCatalog | undefined, generation: number): Unfixable | undefined {
  const p = unfixableProgressing(cat, generation);
  if (!cat || !p) return undefined;
  const name = cat.metadata?.name ?? '';
  return { cause: oneLine(p.message) || p.reason, next: [`kubectl olm catalog delete ${shellQuote(name)}`, `kubectl olm catalog add ${shellQuote(name)} <image>`] };
}
