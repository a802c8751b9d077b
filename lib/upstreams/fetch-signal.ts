/** The abort signal handed to the default client (node-fetch 2): a listener list, not an EventTarget. */

/** An abort listener: a function, or an object with `handleEvent()` (as EventTarget takes them), which needs no closure. */
export type AbortListener = (() => void) | { handleEvent(): void };

/** What an upstream call aborts its request with: an AbortController, or the light one below. */
export interface CallAborter {
  readonly signal: AbortSignal;
  abort(): void;
}

/**
 * node-fetch 2 accepts any object whose class is named `AbortSignal` (its documented support for
 * polyfills) and uses only `aborted` and `add/removeEventListener('abort', fn)`. A real
 * AbortController builds an EventTarget per call, a measurable share of a proxied request's CPU,
 * so calls made with the default client use this instead. A host's own client gets a real one.
 * CallContext keeps its abort listeners in one too.
 */
export class LightSignal {
  aborted = false;
  private listeners: AbortListener[] = [];

  addEventListener(_type: 'abort', listener: AbortListener): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /** The signal is its own controller. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  /** Aborts once: every listener runs. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const listener of this.listeners.splice(0)) {
      if (typeof listener === 'function') listener();
      else listener.handleEvent();
    }
  }
}
// node-fetch 2 checks `Object.getPrototypeOf(signal).constructor.name === 'AbortSignal'`.
Object.defineProperty(LightSignal, 'name', { value: 'AbortSignal' });

/** A light aborter for node-fetch 2. */
export const lightAborter = (): CallAborter => new LightSignal() as unknown as CallAborter;

/** A real AbortController, for any other fetch-compatible client. */
export const realAborter = (): CallAborter => new AbortController();
