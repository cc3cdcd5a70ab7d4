/**
 * The journal of ./scripts/faults: one JSON line per finished run after a head line naming the protocol
 * and first seed, so that a long table can be made in several sittings (each line names its commit).
 */
import fs from 'node:fs';
import { z } from 'zod';
import { violationKinds } from '../../harness/history.js';
import { Protocol } from '../../impl/store/schema.js';
import { issuesText } from '../../impl/common/issues.js';
import { UsageError } from '../../impl/cli/flags.js';

const Violations = z.object(
  Object.fromEntries(violationKinds.map((k) => [k, z.number().int().nonnegative()])),
);
/** One finished run, as the journal keeps it. */
export const Entry = z.object({
  seed: z.number().int().nonnegative(),
  commit: z.string(),
  faults: z.array(z.string()),
  rejected: z.boolean(),
  /** The event the spec could not take, for a rejected run. */
  rejection: z.string().optional(),
  violations: Violations,
  error: z.string().optional(),
  seconds: z.number(),
});
export type Entry = z.infer<typeof Entry>;
export const JournalHead = z.object({
  journal: z.literal('faults'),
  protocol: Protocol,
  firstSeed: z.number().int(),
});

/** A bad journal (a file named by --journal that is not one of this run's): bad usage. */
export class JournalError extends UsageError {}

/**
 * The journal's runs of seeds first .. first + runs - 1; a new journal gets its head line. A journal of
 * another protocol or first seed, or a line that is not a run, is an error: nothing is appended to it.
 * A last line cut short (the script was killed while writing it) is dropped: that run runs again.
 */
export function openJournal(
  file: string,
  head: z.infer<typeof JournalHead>,
  runs: number,
): Map<number, Entry> {
  const kept = new Map<number, Entry>();
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, `${JSON.stringify(head)}\n`);
    return kept;
  }
  const text = fs.readFileSync(file, 'utf8');
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  if (whole.length < text.length) {
    console.log(`${file}: its last line was cut short; dropped (that run runs again)`);
    fs.truncateSync(file, Buffer.byteLength(whole));
  }
  const [first, ...lines] = whole.split('\n').filter(Boolean);
  const parse = <S extends z.ZodTypeAny>(schema: S, line: string | undefined, n: number): z.output<S> => {
    let json: unknown;
    try {
      json = JSON.parse(line ?? '');
    } catch {
      throw new JournalError(`${file}:${n}: not JSON`);
    }
    const r = schema.safeParse(json);
    if (!r.success) throw new JournalError(`${file}:${n}: ${issuesText(r.error, 'line')}`);
    return r.data as z.output<S>;
  };
  const found = parse(JournalHead, first, 1);
  if (found.protocol !== head.protocol || found.firstSeed !== head.firstSeed)
    throw new JournalError(
      `${file} is a journal of ${found.protocol} from seed ${found.firstSeed}, not ${head.protocol} from seed ${head.firstSeed}`,
    );
  lines.forEach((line, i) => {
    const entry = parse(Entry, line, i + 2);
    if (entry.seed < head.firstSeed + runs) kept.set(entry.seed, entry);
  });
  return kept;
}

/** Appends one finished run. */
export function appendRun(file: string, entry: Entry): void {
  fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
}
