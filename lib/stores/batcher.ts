/** Groups the calls made in one tick into one database statement (one round trip, one commit). */

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * `add(item)` resolves with that item's result once its batch is written. A batch is every
 * item added before the next turn of the event loop, at most `max` items; `write` gets the
 * items and returns one result per item, in order. If `write` fails for a batch of several,
 * each item is written again alone, so one item the database refuses fails alone.
 */
export class Batcher<T, R> {
  private queue: Array<Pending<T, R>> = [];

  constructor(private readonly write: (items: T[]) => Promise<R[]>, private readonly max = 500) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.max);
    if (this.queue.length > 0) setImmediate(() => this.flush());
    this.writeAll(batch);
  }

  private writeAll(batch: Array<Pending<T, R>>): void {
    this.write(batch.map((p) => p.item)).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i] as R)),
      (err: unknown) => {
        if (batch.length === 1) batch[0]?.reject(err);
        else for (const p of batch) this.writeAll([p]);
      },
    );
  }
}
