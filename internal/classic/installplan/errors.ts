// Errors as upstream builds and classifies them: Go's `errors.Wrapf` / `fmt.Errorf("…: %w")` keep the
// cause (so apierrors.IsForbidden / IsNotFound still see it), `fmt.Errorf("… %v")` does not; and the fixed
// texts ExecutePlan returns.
import { isApiError, isNoKindMatch, type StatusReason } from '../../shared/kube/index.ts';
import { errorMessage } from '../../shared/toolkit/index.ts';

/** `<message>: <cause>` with the cause kept for classification (pkg/errors Wrapf, fmt.Errorf with %w). */
export function wrap(message: string, cause: unknown): Error {
  return new Error(`${message}: ${errorMessage(cause)}`, { cause });
}

/** What `run` resolves to; its error as `<message>: <cause>` (Go's `if err != nil { return errors.Wrapf(err, …) }`). */
export async function wrapped<T>(message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw wrap(message, err);
  }
}

const OPAQUE = Symbol('opaque');

/**
 * `<message>` built from a cause Go formatted with %v or %s, which hides it from errors.As: the cause is kept for
 * logs, but classification (Forbidden, NotFound, Conflict) does not look past it.
 */
export function opaque(message: string, cause: unknown): Error {
  const err = new Error(message, { cause });
  Object.defineProperty(err, OPAQUE, { value: true });
  return err;
}

/**
 * The Status reason of the first API error in the cause chain (apimachinery's ReasonForError with errors.As).
 * Our client refuses a kind discovery does not know before asking (NoKindMatchError) where client-go's typed and
 * dynamic clients send the request and get a 404: that counts as NotFound.
 */
export function reasonInChain(err: unknown): StatusReason | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (isApiError(e)) return e.reason;
    if (isNoKindMatch(e)) return 'NotFound';
    e = e instanceof Error && !(e as unknown as Record<symbol, unknown>)[OPAQUE] ? e.cause : undefined;
  }
  return undefined;
}

export const isForbiddenError = (err: unknown): boolean => reasonInChain(err) === 'Forbidden';
export const isNotFoundError = (err: unknown): boolean => reasonInChain(err) === 'NotFound';

/** v1alpha1.ErrInvalidInstallPlan. */
export const ERR_INVALID_INSTALL_PLAN = 'the InstallPlan contains invalid data';
export const invalidInstallPlan = (): Error => new Error(ERR_INVALID_INSTALL_PLAN);

/** Go's schema.GroupVersionKind String(): `<group>/<version>, Kind=<kind>` (`/v1, Kind=Secret` for the core group). */
export const gvkString = (group: string, version: string, kind: string): string => `${group}/${version}, Kind=${kind}`;

/** The step's API is not served (gvkNotFoundError, not_found.go). */
export function gvkNotFound(group: string, version: string, kind: string, name: string): Error {
  return new Error(
    `api-server resource not found installing ${kind} ${name}: GroupVersionKind ${gvkString(group, version, kind)} not found on the cluster. ` +
      'This API may have been deprecated and removed, see https://kubernetes.io/docs/reference/using-api/deprecation-guide/ for more information.',
  );
}
