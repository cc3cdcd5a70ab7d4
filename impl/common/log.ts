/** Structured logs (pino) to stderr, one logger per process named by its role and id. */
import { type Logger, destination, pino } from 'pino';

export type { Logger };

export function makeLogger(
  role: string,
  id: string,
  level = process.env['DHSCHED_LOG_LEVEL'] ?? 'info',
): Logger {
  return pino({ level, base: { role, id } }, destination(2));
}

/** A logger that writes nothing, for in-process tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
