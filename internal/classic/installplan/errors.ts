// Errors as upstream builds and classifies them: Go's `errors.Wrapf` / `fmt.Errorf("…: %w")` keep the
// cause (so apierrors.IsForbidden / IsNotFound still see it), `fmt.Errorf("… %v")` does not; and the fixed
// texts ExecutePlan returns.
import { isApiError, type StatusReason } from '../../shared/kube/index.ts';

/** `<message>: <cause>` with the cause kept for classification (pkg/errors Wrapf, fmt.Errorf with %w). */
export function wrap(message: string, cause: unknown): Error {
  return new Error(`${message}: ${errorText(cause)}`, { cause });
}

/** The text of any thrown value, as Go's err.Error(). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The Status reason of the first API error in the cause chain (apimachinery's ReasonForError with errors.As). */
export function reasonInChain(err: unknown): StatusReason | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (isApiError(e)) return e.reason;
    e = e instanceof Error ? e.cause : undefined;
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
