// The controllers' memory settings, made at run time rather than as node flags: any V8 flag on node's command line
// (`--max-semi-space-size`, `--expose-gc`, …) changes V8's flag hash, so node's built-in code cache no longer matches
// and every built-in module a controller loads is compiled from source — ~20 ms of catalogd's start-up
// (bench/footprint.ts, issue 17). Flags set once the process is up change the hash too, but by then the built-ins
// it needs are loaded.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's young generation (both semi-spaces) grows no further once it is this big: what `--max-semi-space-size=2` gave. */
const YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

let enabled = false;
let gc: (() => void) | undefined;

/**
 * Turns the settings on; the manager calls it once its servers listen, before its caches fill:
 * - V8's young generation grows to about 2 MiB per semi-space (what `--max-semi-space-size=2` gave), no further:
 *   after every collection its growth factor is set to 1 while the space is that big (a burst of allocation may
 *   double it once more before that collection is reported) and to V8's default 2 once V8 has shrunk it (an idle
 *   spell), so it grows back under load. Left alone it grows to 16 MiB per semi-space under a burst of allocation
 *   (serving a catalog, parsing one) and stays there, ~25 MiB more RSS for catalogd serving a 57 MB-class catalog;
 *   held where an idle spell left it (1 MiB), serving metas answered 28 % fewer requests per second
 *   (bench/catalogd-peer.ts). V8 reads the factor each time it would grow the space. The first setting changes
 *   V8's flag hash: built-in modules loaded after it compile without node's code cache (~3 ms for the few a first
 *   listen loads, hence not earlier). A young-generation size given to node (`--max-semi-space-size`,
 *   `--semi-space-growth-factor`, through OLMV1_NODE_FLAGS or NODE_OPTIONS) is left as given.
 * - `collectGarbage()` collects from now on: with node's `gc` when started with --expose-gc, else V8's gc extension,
 *   turned on at its first call (it is installed in contexts made after that: one small context holds it).
 */
export function tuneMemory(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (!given.some((f) => /^--(max-semi-space-size|semi-space-growth-factor)\b/.test(f))) capYoungGeneration();
  enabled = true;
}

let capping: PerformanceObserver | undefined;

function capYoungGeneration(): void {
  if (capping) return;
  let factor = 0;
  const settle = (): void => {
    const full = (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) >= YOUNG_GENERATION_BYTES;
    const wanted = full ? 1 : 2;
    if (wanted === factor) return;
    setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
    factor = wanted;
  };
  settle();
  capping = new PerformanceObserver(settle);
  capping.observe({ entryTypes: ['gc'] });
}

/**
 * A full collection now, once `tuneMemory()` has run (or node runs with --expose-gc); otherwise nothing. Memory
 * given back after a large, rare batch of work: a catalog pulled, parsed and stored leaves ~30 MiB of buffers and
 * ~20 MiB of heap garbage at once. V8 collects it only at its next major GC, which in an idle controller comes
 * 10–20 s later, and glibc keeps much of what was freed: catalogd held 125 MiB at Serving and 104 MiB after that GC
 * against 71 MiB before the catalog (bench/catalogd-peer.ts, issue 17). A full collection right after the batch,
 * with glibc's mmap threshold fixed (cmd/entrypoint.sh sets MALLOC_MMAP_THRESHOLD_, so big buffers are mapped and
 * unmapped instead of kept in its heap), brings it to 88 MiB at once. A full GC of a controller's heap takes
 * ~10–30 ms; a batch this big comes once per catalog content change.
 */
export function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (!enabled && !exposed) return;
  gc ??= exposed ?? exposeGc();
  gc();
}

function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export interface IdleCollectorOptions {
  /** Units of work (reconciles) since the last collection that make a burst worth collecting after; default 50. */
  readonly burst?: number;
  /** How long nothing must be running before collecting; default 2 s. */
  readonly idleMs?: number;
  /** Default collectGarbage. */
  readonly collect?: () => void;
}

/**
 * A full collection once a burst of work has ended. A controller's burst (a catalog update moving a hundred
 * extensions) leaves tens of MiB of garbage that V8 would collect only at some later major GC, so an idle
 * controller's RSS depends on when the last one ran (an operator-controller that installed 100 extensions held
 * 77 MiB of heap of which 29 MiB live). Work is counted with `started()`/`done()`; after `burst` units, once nothing
 * has run for `idleMs`, `collect` runs (a full GC of a controller's heap: ~10–30 ms).
 */
export class IdleCollector {
  readonly #burst: number;
  readonly #idleMs: number;
  readonly #collect: () => void;
  #running = 0;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: IdleCollectorOptions = {}) {
    this.#burst = o.burst ?? 50;
    this.#idleMs = o.idleMs ?? 2_000;
    this.#collect = o.collect ?? collectGarbage;
  }

  started(): void {
    this.#running++;
    this.#since++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  done(): void {
    this.#running = Math.max(0, this.#running - 1);
    if (this.#running > 0 || this.#since < this.#burst) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#running > 0) return;
      this.#since = 0;
      this.#collect();
    }, this.#idleMs);
    this.#timer.unref();
  }
}

/** The process's collector, which every controller reports its reconciles to. */
export const idleCollector = new IdleCollector();
