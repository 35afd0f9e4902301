// Typed errors of the Kubernetes client layer, and the helpers that classify them.
//
//   ApiError          the API server answered with a non-2xx status (a metav1.Status body)
//   NetworkError      no answer: connection refused/reset, DNS, timeouts, TLS (`retryable` says which)
//   KubeConfigError   the kubeconfig is missing, unreadable, malformed or incomplete (one clear line)
//   NoKindMatchError  discovery does not know the apiVersion/kind (upstream's meta.NoKindMatchError text)
//
// `isNotFound(err)` and friends follow client-go's apierrors: the Status reason decides, and a
// missing reason falls back to the HTTP code.
import type { Status } from '../../../api/meta/v1.ts';

/** Reasons the API server puts in metav1.Status (open: servers may add more). */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'ServerTimeout'
  | 'Unknown'
  | (string & {});

const REASON_FOR_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** client-go's reason for an answer whose body carried none. */
export function reasonForCode(code: number): StatusReason {
  return REASON_FOR_CODE[code] ?? 'Unknown';
}

const API_ERROR = Symbol.for('olmv1.kube.ApiError');
const NETWORK_ERROR = Symbol.for('olmv1.kube.NetworkError');

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** A non-2xx answer. `message` is the server's Status message, verbatim. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code. */
  readonly code: number;
  readonly reason: StatusReason;
  /** The Status body (synthesised from the code when the body was not a Status). */
  readonly status: Status;
  readonly method: string;
  readonly path: string;

  constructor(code: number, status: Status, request: { readonly method: string; readonly path: string }) {
    super(status.message || `${request.method} ${request.path}: HTTP ${code} ${reasonForCode(code)}`);
    this.code = code;
    this.reason = status.reason || reasonForCode(code);
    this.status = status;
    this.method = request.method;
    this.path = request.path;
    Object.defineProperty(this, API_ERROR, { value: true });
  }

  /** Server's hint for 429/503/504 answers, in seconds. */
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ApiError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return branded(value, API_ERROR);
  }
}

/** Codes of TLS verification failures: retrying cannot help until the configuration changes. */
const TLS_FAILURE = /CERT|SIGNATURE|SELF_SIGNED|ISSUER|ERR_TLS|ERR_SSL/;

/** No usable answer from the server. TLS verification failures are not `retryable`. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  /** The underlying code, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`. */
  readonly code: string;
  readonly retryable: boolean;

  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.retryable = !TLS_FAILURE.test(code);
    Object.defineProperty(this, NETWORK_ERROR, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== NetworkError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return branded(value, NETWORK_ERROR);
  }
}

export type KubeConfigErrorCode = 'NotFound' | 'Unreadable' | 'Malformed' | 'Invalid' | 'NoConfiguration';

/** The kubeconfig cannot be used. `message` is one line naming the file and the problem. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  readonly code: KubeConfigErrorCode;
  /** The file at fault, when there is one. */
  readonly file: string | undefined;

  constructor(code: KubeConfigErrorCode, message: string, file?: string, options?: ErrorOptions) {
    super(message.replace(/\s*\n\s*/g, ' '), options);
    this.code = code;
    this.file = file;
  }
}

/** Discovery has no resource for this apiVersion and kind (yet: a CRD may be on its way). */
export class NoKindMatchError extends Error {
  override readonly name = 'NoKindMatchError';
  readonly apiVersion: string;
  readonly kind: string;

  constructor(apiVersion: string, kind: string) {
    super(`no matches for kind "${kind}" in version "${apiVersion}"`);
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;
export const isNetworkError = (err: unknown): err is NetworkError => err instanceof NetworkError;
export const isNoKindMatch = (err: unknown): err is NoKindMatchError => err instanceof NoKindMatchError;

/** The Status reason of an ApiError, else undefined. */
export function reasonOf(err: unknown): StatusReason | undefined {
  return isApiError(err) ? err.reason : undefined;
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
/** A write lost an optimistic-concurrency race (or SSA met another manager's field). Not AlreadyExists. */
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
export const isForbidden = (err: unknown): boolean => reasonOf(err) === 'Forbidden';
/** A create refused because its namespace is being deleted (Forbidden with the cause NamespaceTerminating). */
export const isNamespaceTerminating = (err: unknown): boolean =>
  isForbidden(err) && ((err as ApiError).status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false);
export const isInvalid = (err: unknown): boolean => reasonOf(err) === 'Invalid';
export const isBadRequest = (err: unknown): boolean => reasonOf(err) === 'BadRequest';
/** 410: a resourceVersion or continue token too old to serve (reason Gone or Expired). */
export const isGone = (err: unknown): boolean => {
  const r = reasonOf(err);
  return r === 'Gone' || r === 'Expired' || (isApiError(err) && err.code === 410);
};

/** Worth trying again as-is later: network trouble, throttling, server-side timeouts and 5xx. */
export function isRetryable(err: unknown): boolean {
  if (isNetworkError(err)) return err.retryable;
  if (!isApiError(err)) return false;
  if (err.code === 429 || err.code >= 500) return true;
  return err.reason === 'ServerTimeout' || err.reason === 'Timeout' || err.reason === 'TooManyRequests';
}

/** Resolves undefined where `p` rejects with NotFound (a delete that found nothing, a get of a gone object). */
export async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
