// The ClusterCatalog status catalogd writes: conditions, resolvedSource, urls and lastUnpacked,
// with upstream's reasons and messages (operator-controller internal/catalogd/controllers/core).
import {
  ReasonAvailable,
  ReasonBlocked,
  ReasonRetrying,
  ReasonSucceeded,
  ReasonUnavailable,
  ReasonUserSpecifiedUnavailable,
  SourceTypeImage,
  TypeProgressing,
  TypeServing,
  type ClusterCatalogStatus,
} from '../../../api/v1/index.ts';
import { errorMessage, formatTime, isTerminal, setCondition, type ConditionInput } from '../../shared/controller/index.ts';

export const MessageSucceeded = 'Successfully unpacked and stored content from resolved source';
export const MessageServing = 'Serving desired content from resolved source';
export const MessageUserSpecifiedUnavailable = 'Catalog availability mode is set to Unavailable';

/** One of catalogd's conditions, with observedGeneration when the generation is known. */
function set(status: ClusterCatalogStatus, generation: number | undefined, now: Date, condition: Omit<ConditionInput, 'observedGeneration'>): void {
  setCondition((status.conditions ??= []), { ...condition, ...(generation !== undefined && { observedGeneration: generation }) }, now);
}

/** Progressing: True/Succeeded without an error, True/Retrying with one, False/Blocked with a terminal one. */
export function setProgressing(status: ClusterCatalogStatus, generation: number | undefined, err: unknown, now: Date): void {
  const failed = err !== undefined;
  const terminal = failed && isTerminal(err);
  set(status, generation, now, {
    type: TypeProgressing,
    status: terminal ? 'False' : 'True',
    reason: terminal ? ReasonBlocked : failed ? ReasonRetrying : ReasonSucceeded,
    message: failed ? errorMessage(err) : MessageSucceeded,
  });
}

/** Serving=True/Available with the resolved digest reference, the base URL and the unpack time. */
export function setServing(
  status: ClusterCatalogStatus,
  served: { readonly ref: string; readonly unpackedAt: Date; readonly baseUrl: string },
  generation: number | undefined,
  now: Date,
): void {
  status.resolvedSource = { type: SourceTypeImage, image: { ref: served.ref } };
  status.urls = { base: served.baseUrl };
  status.lastUnpacked = formatTime(served.unpackedAt);
  set(status, generation, now, { type: TypeServing, status: 'True', reason: ReasonAvailable, message: MessageServing });
}

/** Serving=False/Unavailable (empty message, as upstream) and nothing resolved, no URL, no unpack time. */
export function setNotServing(status: ClusterCatalogStatus, generation: number | undefined, now: Date): void {
  delete status.resolvedSource;
  delete status.urls;
  delete status.lastUnpacked;
  set(status, generation, now, { type: TypeServing, status: 'False', reason: ReasonUnavailable, message: '' });
}

/** availabilityMode Unavailable: Progressing=True/Succeeded and Serving=False/UserSpecifiedUnavailable. */
export function setUserSpecifiedUnavailable(status: ClusterCatalogStatus, generation: number | undefined, now: Date): void {
  set(status, generation, now, { type: TypeProgressing, status: 'True', reason: ReasonSucceeded, message: MessageUserSpecifiedUnavailable });
  set(status, generation, now, { type: TypeServing, status: 'False', reason: ReasonUserSpecifiedUnavailable, message: MessageUserSpecifiedUnavailable });
}

/** Drops conditions of types catalogd does not own (only Serving and Progressing are kept). */
export function clearUnknownConditions(status: ClusterCatalogStatus): void {
  if (status.conditions) status.conditions = status.conditions.filter((c) => c.type === TypeServing || c.type === TypeProgressing);
}
