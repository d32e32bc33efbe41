/**
 * Thrown by a command that finished but must end with a given exit code (migrate: 1 when some items
 * failed, 130 when interrupted); `main` returns the code. An error, not `process.exitCode`, so the
 * code travels with the call and nothing global is set.
 */
export class ExitWith extends Error {
  override name = 'ExitWith';
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
