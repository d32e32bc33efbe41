/** Thrown by a command that finished with another exit code than 0 (migrate, verify): `main` returns it, nothing global is set. */
export class ExitWith extends Error {
  override name = 'ExitWith';
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
