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
import { errorMessage, formatTime, isTerminal, setCondition } from '../../shared/controller/index.ts';

export const MessageSucceeded = 'Successfully unpacked and stored content from resolved source';
export const MessageServing = 'Serving desired content from resolved source';
export const MessageUserSpecifiedUnavailable = 'Catalog availability mode is set to Unavailable';

/** Progressing: True/Succeeded without an error, True/Retrying with one, False/Blocked with a terminal one. */
export function setProgressing(status: ClusterCatalogStatus, generation: number | undefined, err: unknown, now: Date): void {
  const failed = err !== undefined;
  const terminal = failed && isTerminal(err);
  setCondition(
    (status.conditions ??= []),
    {
      type: TypeProgressing,
      status: terminal ? 'False' : 'True',
      reason: terminal ? ReasonBlocked : failed ? ReasonRetrying : ReasonSucceeded,
      message: failed ? errorMessage(err) : MessageSucceeded,
      ...(generation !== undefined && { observedGeneration: generation }),
    },
    now,
  );
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
  setCondition(
    (status.conditions ??= []),
    {
      type: TypeServing,
      status: 'True',
      reason: ReasonAvailable,
      message: MessageServing,
      ...(generation !== undefined && { observedGeneration: generation }),
    },
    now,
  );
}

/** Serving=False/Unavailable (empty message, as upstream) and nothing resolved, no URL, no unpack time. */
export function setNotServing(status: ClusterCatalogStatus, generation: number | undefined, now: Date): void {
  delete status.resolvedSource;
  delete status.urls;
  delete status.lastUnpacked;
  setCondition(
    (status.conditions ??= []),
    {
      type: TypeServing,
      status: 'False',
      reason: ReasonUnavailable,
      message: '',
      ...(generation !== undefined && { observedGeneration: generation }),
    },
    now,
  );
}

/** availabilityMode Unavailable: Progressing=True/Succeeded and Serving=False/UserSpecifiedUnavailable. */
export function setUserSpecifiedUnavailable(status: ClusterCatalogStatus, generation: number | undefined, now: Date): void {
  const conditions = (status.conditions ??= []);
  const gen = generation !== undefined ? { observedGeneration: generation } : {};
  setCondition(conditions, { type: TypeProgressing, status: 'True', reason: ReasonSucceeded, message: MessageUserSpecifiedUnavailable, ...gen }, now);
  setCondition(conditions, { type: TypeServing, status: 'False', reason: ReasonUserSpecifiedUnavailable, message: MessageUserSpecifiedUnavailable, ...gen }, now);
}

/** Drops conditions of types catalogd does not own (only Serving and Progressing are kept). */
export function clearUnknownConditions(status: ClusterCatalogStatus): void {
  if (status.conditions) status.conditions = status.conditions.filter((c) => c.type === TypeServing || c.type === TypeProgressing);
}
