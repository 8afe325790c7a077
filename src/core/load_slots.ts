// --num_load_threads: how many version loads may run at once, server-wide. Loads past the
// bound wait their turn in arrival order. 0 means no bound: every load starts at once, as
// tfgate has always done (a load is mostly an executor thread's work, off the main thread;
// TF Serving's 0 instead loads serially in its manager's loop).
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
