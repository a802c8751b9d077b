/** Group commit: the calls that arrive while a write is under way go together in the next one (one round trip, one commit). */

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** Options of a Batcher. */
export interface BatcherOptions {
  /** Most items in one write. Default: 500. */
  max?: number;
  /** Writes under way at once; the items that arrive meanwhile wait and go together. Default: 1. */
  inFlight?: number;
  /** A write still running after this many ms stops counting against `inFlight` (a hung connection must not stop every write). Default: 5000. */
  stallMs?: number;
}

/**
 * `add(item)` resolves with that item's result once its batch is written. A batch is every item
 * added before the next turn of the event loop and while the previous write was under way, at
 * most `max` items: the busier the store, the larger the batch, and the fewer the transactions
 * and row locks per request. `write` gets the items and returns one result per item, in order.
 * If `write` fails for a batch of several, each item is written again alone, so one item the
 * database refuses fails alone.
 */
export class Batcher<T, R> {
  private queue: Array<Pending<T, R>> = [];
  private running = 0;
  private scheduled = false;
  private readonly max: number;
  private readonly inFlight: number;
  private readonly stallMs: number;

  constructor(private readonly write: (items: T[]) => Promise<R[]>, options: BatcherOptions = {}) {
    this.max = options.max ?? 500;
    this.inFlight = options.inFlight ?? 1;
    this.stallMs = options.stallMs ?? 5000;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.running >= this.inFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.queue.length > 0 && this.running < this.inFlight) {
      const batch = this.queue.splice(0, this.max);
      this.running++;
      let counted = true;
      const done = (): void => {
        if (!counted) return;
        counted = false;
        this.running--;
        this.schedule();
      };
      const stall = setTimeout(done, this.stallMs);
      stall.unref();
      void this.writeAll(batch).finally(() => {
        clearTimeout(stall);
        done();
      });
    }
  }

  private writeAll(batch: Array<Pending<T, R>>): Promise<void> {
    return this.write(batch.map((p) => p.item)).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i] as R)),
      async (err: unknown) => {
        if (batch.length === 1) batch[0]?.reject(err);
        else await Promise.all(batch.map((p) => this.writeAll([p])));
      },
    );
  }
}
