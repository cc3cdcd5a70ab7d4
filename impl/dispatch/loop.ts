/** A background task run again and again, one pass at a time, with a pause between passes. */
import type { Logger } from 'pino';

export interface Loop {
  /** No pass starts after this; resolves once the pass in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` after `pauseMs()` (asked again before each pass, so it can jitter), until stopped.
 * A failed pass is logged and the loop goes on. The timer never keeps the process alive.
 */
export function startLoop(what: string, pass: () => Promise<void>, pauseMs: () => number, log: Logger): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      inFlight = pass()
        .catch((err: unknown) => log.warn({ err }, `${what} failed`))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, pauseMs());
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
