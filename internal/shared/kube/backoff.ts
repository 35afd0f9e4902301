// Jittered exponential backoff for reconnect loops: 0.8 s, 1.6 s, 3.2 s … capped at 30 s, each
// delay moved by up to ±10 % (`jitter` 0.2) at random so many clients do not reconnect in step.

export interface BackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  readonly factor?: number;
  /** Each delay is multiplied by 1 + jitter × (random() − ½); default 0.2, i.e. ±10 %. */
  readonly jitter?: number;
  /** Source of randomness in [0, 1); default Math.random. */
  readonly random?: () => number;
}

export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initial = options.initialMs ?? 800;
    this.#max = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.2;
    this.#random = options.random ?? Math.random;
  }

  /** Failures since the last reset. */
  get attempts(): number {
    return this.#attempt;
  }

  /** The delay before the next attempt; grows with each call. */
  next(): number {
    const base = Math.min(this.#max, this.#initial * this.#factor ** this.#attempt);
    this.#attempt++;
    return Math.round(base * (1 + this.#jitter * (this.#random() - 0.5)));
  }

  reset(): void {
    this.#attempt = 0;
  }
}
