/**
 * The command-line conventions of `dhsched` and of every script (scripts/*.ts, conformance-*): commander
 * parses, zod checks each value, and a bad one is refused naming the flag and the value
 * (`bench-checker: --runs must be a positive integer, got "abc"`). --version prints package.json's version.
 * Exit status: 0 done (and after --help or --version), 1 refused or failed, 2 bad usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';

export const Exit = { done: 0, failed: 1, usage: 2 } as const;

/** Bad usage seen after parsing (a name or a file given that the program cannot use): exit 2. */
export class UsageError extends Error {}

const PackageJson = z.object({ version: z.string().min(1) });

/** The version in the package.json above this file (in the sources or in dist/). */
function packageVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return PackageJson.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).version;
    if (path.dirname(dir) === dir) throw new Error('no package.json above impl/cli/');
  }
}

// commander words a bad value "error: option '--runs <n>' argument 'abc' is invalid. WHY" or "error:
// command-argument value 'abc' is invalid for argument 'text'. WHY"; WHY is a Kind's "must be ..." or
// commander's "Allowed choices are a, b."
const BAD_OPTION =
  /^error: option '(?:-\w, )?(?<name>--[\w-]+)[^']*' argument '(?<value>.*)' is invalid\. (?<why>.*)\n$/s;
const BAD_ARGUMENT =
  /^error: command-argument value '(?<value>.*)' is invalid for argument '(?<name>[^']*)'\. (?<why>.*)\n$/s;

/** A commander error in plain words: `--runs must be a positive integer, got "abc"`. */
function plain(message: string): string {
  const bad = (BAD_OPTION.exec(message) ?? BAD_ARGUMENT.exec(message))?.groups;
  if (!bad) return message.replace(/^error: /, '');
  const why = bad['why']!.replace(/^Allowed choices are (.*)\.$/s, 'must be one of $1');
  const value = bad['value']!;
  return `${bad['name']} ${why}, got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)}\n`;
}

/**
 * A program of these conventions: `name: why` on stderr for a usage error, --version, no stray
 * arguments. Its parse throws a CommanderError once commander has printed why (see `exitStatus`).
 */
export function program(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .version(packageVersion(), '--version', 'print the version and exit')
    .helpOption('-h, --help', 'print this help and exit')
    .allowExcessArguments(false)
    .configureOutput({ outputError: (str, write) => write(`${name}: ${plain(str)}`) })
    .showHelpAfterError('(--help lists the options)')
    .exitOverride();
}

/** What a flag or an argument takes: a zod schema of the text given, and its name in words. */
export interface Kind<T> {
  words: string;
  schema: z.ZodType<T, string>;
}

/** An integer from `min` to `max`. */
export function integer(min = 0, max = Number.MAX_SAFE_INTEGER): Kind<number> {
  const words =
    max < Number.MAX_SAFE_INTEGER
      ? `an integer from ${min} to ${max}`
      : min === 1
        ? 'a positive integer'
        : min === 0
          ? 'a non-negative integer'
          : `an integer of at least ${min}`;
  const schema = z
    .string()
    .regex(/^-?[0-9]+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
  return { words, schema };
}

/** A number above 0 (seconds, say). */
export const positiveNumber: Kind<number> = {
  words: 'a positive number',
  schema: z
    .string()
    .regex(/^[0-9]*\.?[0-9]+$/)
    .transform(Number)
    .pipe(z.number().positive()),
};

/** A file or folder name: not empty. */
export const fileName: Kind<string> = { words: 'a file name', schema: z.string().min(1) };

/** A comma-separated list of one or more values of `item`; `words` names them in the plural. */
export function listOf<T>(item: Kind<T>['schema'], words: string): Kind<T[]> {
  const items = z.string().transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  );
  return { words: `a comma-separated list of ${words}`, schema: items.pipe(z.array(item).min(1)) };
}

/** The parser of a value of `kind`, for commander: a bad one is refused in its words. */
export function parser<T>(kind: Kind<T>): (value: string) => T {
  return (value) => {
    const parsed = kind.schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new InvalidArgumentError(`must be ${kind.words}`);
  };
}

/** An option taking a value of `kind`. */
export function option<T>(flags: string, description: string, kind: Kind<T>): Option {
  return new Option(flags, description).argParser(parser(kind));
}

/** A command argument taking a value of `kind`. */
export function argument<T>(name: string, description: string, kind: Kind<T>): Argument {
  return new Argument(name, description).argParser(parser(kind));
}

/**
 * `input` as `schema` reads it, for checks across flags once each has parsed; else a UsageError naming
 * the flag (the first problem's path, in kebab case): `--workers must be at most 64, got 100`.
 */
export function checked<S extends z.ZodTypeAny>(schema: S, input: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data as z.output<S>;
  const issue = parsed.error.issues[0]!;
  const flag = `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (issue.code !== 'too_big') throw new UsageError(`${flag}: ${issue.message}`);
  const value = issue.path.reduce<unknown>((v, key) => (v as Record<PropertyKey, unknown>)[key], input);
  throw new UsageError(`${flag} must be at most ${String(issue.maximum)}, got ${String(value)}`);
}

/** The exit status an error ends a program with: 0 after --help or --version, 2 for bad usage, else 1. */
export function exitStatus(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? Exit.done : Exit.usage;
  return err instanceof UsageError ? Exit.usage : Exit.failed;
}

/**
 * Runs a script's main and exits with its status; an error it throws is printed as `name: why` (with its
 * stack unless it is a UsageError; commander's own are printed already) and exits as `exitStatus` says.
 */
export function runScript(name: string, main: () => number | Promise<number>): void {
  Promise.resolve()
    .then(main)
    .then(
      (status) => process.exit(status),
      (err: unknown) => {
        if (!(err instanceof CommanderError)) {
          const why = !(err instanceof Error)
            ? String(err)
            : err instanceof UsageError
              ? err.message
              : err.stack;
          process.stderr.write(`${name}: ${why ?? String(err)}\n`);
        }
        process.exit(exitStatus(err));
      },
    );
}
