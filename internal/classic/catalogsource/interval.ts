// spec.updateStrategy.registryPoll.interval: a Go duration, read as upstream's UpdateStrategy
// UnmarshalJSON does — an unparsable value falls back to 15m with upstream's message. Go's duration
// parsing and printing live in internal/shared/gocompat.
import { DefaultRegistryPollDurationMs } from '../../../api/operators/index.ts';
import { formatGoDuration, parseGoDuration } from '../../shared/gocompat/index.ts';

export { formatGoDuration, parseGoDuration };

/** The poll interval and, when the text did not parse, upstream's message for `status.message`. */
export function pollInterval(raw: string | undefined): { ms: number; error?: string } {
  const r = parseGoDuration(raw ?? '');
  if ('ms' in r) return { ms: r.ms };
  return {
    ms: DefaultRegistryPollDurationMs,
    error: `error parsing spec.updateStrategy.registryPoll.interval. Using the default value of ${formatGoDuration(DefaultRegistryPollDurationMs)} instead. Error: ${r.error}`,
  };
}
