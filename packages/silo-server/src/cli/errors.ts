/**
 * The failures a command reports as one line, and which exit code each gets (see main in
 * ../cli.ts): a wrong use exits 2, a failed command 1.
 */

/** A wrong use of the command: exit 2. */
export class UsageError extends Error {}

/** A failure the command reports as one line: a typed Silo error (it carries an HTTP status). */
export class CommandError extends Error {}

/** The HTTP status a typed Silo error carries; undefined for any other error. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return error instanceof Error && typeof status === 'number' ? status : undefined;
}
