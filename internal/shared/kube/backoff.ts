// Jittered exponential backoff for reconnect loops: 0.8 s, 1.6 s, 3.2 s … capped at 30 s, each
// delay moved by up to ±10 % (`jitter` 0.2) at random so many clients do not reconnect in step.

const JITTER = 0.2;

export interface BackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  /** Source of randomness in [0, 1); default Math.random. Each delay is multiplied by 1 + 0.2 × (random() − ½). */
  readonly random?: () => number;
}

export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initial = options.initialMs ?? 800;
    this.#max = options.maxMs ?? 30_000;
    this.#random = options.random ?? Math.random;
  }

  /** Failures since the last reset. */
  get attempts(): number {
    return this.#attempt;
  }

  /** The delay before the next attempt; grows with each call. */
  next(): number {
    const base = Math.min(this.#max, this.#initial * 2 ** this.#attempt);
    this.#attempt++;
    return Math.round(base * (1 + JITTER * (this.#random() - 0.5)));
  }

  reset(): void {
    this.#attempt = 0;
  }
}
