/** Keep-alive frames on a quiet stream, so proxies and clients do not cut a long upstream silence. */
import { GATEWAY_DEFAULTS } from '../foundation/defaults';
import { checkDuration } from '../foundation/duration';

/** Longest silence on a client stream before a keep-alive frame, in ms. */
export const DEFAULT_KEEP_ALIVE_MS = GATEWAY_DEFAULTS.keepAliveMs;

/** Checks a `keepAliveMs` option once, naming the fix. */
export function checkKeepAliveMs(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_KEEP_ALIVE_MS;
  return checkDuration(value, `${where}: option "keepAliveMs"`, { hint: `(default ${DEFAULT_KEEP_ALIVE_MS}), e.g. keepAliveMs: 15000` });
}

/**
 * Calls `beat` after every `ms` without a `wrote()`. A write only records its time; the one timer
 * re-arms itself for what is left of the interval, so a busy stream costs no timer work per write.
 */
export class KeepAlive {
  private last = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number, private readonly beat: () => void) {
    this.timer = setTimeout(this.fire, ms);
  }

  /** Records a write: the silence starts again. */
  wrote(): void {
    this.last = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly fire = (): void => {
    if (this.timer === undefined) return;
    const left = this.ms - (performance.now() - this.last);
    if (left <= 0) {
      this.beat();
      this.last = performance.now();
    }
    if (this.timer !== undefined) this.timer = setTimeout(this.fire, left <= 0 ? this.ms : Math.ceil(left));
  };
}
