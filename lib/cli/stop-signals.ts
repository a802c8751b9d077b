/**
 * What stops `serve`: SIGTERM or SIGINT, and, under npm (`npx`, `npm exec`, `npm run`), the end of
 * the shell npm started this process with. npm passes a signal on to that shell only, and a shell
 * such as dash ends on it without passing it on: the gateway would serve on, orphaned.
 */

/** How often the parent is checked under npm, in ms. */
const PARENT_CHECK_MS = 500;

/** Calls `stop` once, on the first stop; returns what removes the listeners. */
export function onStop(env: NodeJS.ProcessEnv, print: (line: string) => void, stop: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const done = (): void => {
    process.off('SIGTERM', once);
    process.off('SIGINT', once);
    clearInterval(timer);
  };
  function once(): void {
    done();
    stop();
  }
  process.on('SIGTERM', once);
  process.on('SIGINT', once);
  if (env.npm_lifecycle_event !== undefined) {
    const parent = process.ppid;
    timer = setInterval(() => {
      if (process.ppid === parent) return;
      print('the shell npm started this process with has ended (npm passed a stop signal to it): draining');
      once();
    }, PARENT_CHECK_MS).unref();
  }
  return done;
}
