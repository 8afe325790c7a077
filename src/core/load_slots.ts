// --num_load_threads: how many version loads may run at once, server-wide. Loads past the
// bound wait their turn in arrival order. 0 means no bound (the server never asks for that:
// the flag's 0 is TF Serving's one at a time, see config/flags.ts).
export class LoadSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  /** Runs `load` when a slot is free; the slot is freed when it settles. */
  async run<T>(load: () => Promise<T>): Promise<T> {
    if (this.max > 0 && this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await load();
    } finally {
      // The slot passes straight to the next waiter, so `running` stays as it was.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
