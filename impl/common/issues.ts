import type { ZodError } from 'zod';

/** A zod error as one line: each issue as `path: message`, the path `whole` when the issue is about all of it. */
export function issuesText(error: ZodError, whole: string): string {
  return error.issues.map((i) => `${i.path.join('.') || whole}: ${i.message}`).join('; ');
}
