/** A script's flags: commander parses them, zod validates them; a bad one is named on stderr. */
import { type Command, CommanderError } from 'commander';
import type { z } from 'zod';

/** The validated flags, or the exit code to return at once (0 after --help, 2 for a bad flag). */
export function scriptFlags<S extends z.ZodTypeAny>(program: Command, schema: S): z.output<S> | number {
  try {
    program.parse();
  } catch (err) {
    // commander has printed why; --help exits 0
    return err instanceof CommanderError && err.exitCode === 0 ? 0 : 2;
  }
  const parsed = schema.safeParse(program.opts());
  if (parsed.success) return parsed.data as z.output<S>;
  for (const i of parsed.error.issues)
    process.stderr.write(`${program.name()}: --${String(i.path[0])}: ${i.message}\n`);
  return 2;
}
