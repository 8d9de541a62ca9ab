import os from 'node:os';

// Who acknowledges or shelves an alarm when no name is given: one rule for the CLI (`ack`,
// `shelve`, `unshelve` without --by) and the console (`a`, `S`), so both record the same
// name for one person: the login name of the environment (USER, LOGNAME, USERNAME: what
// `sudo -u` and `su` set), else the system's account name of this uid.

/** The operator's name from `env` (USER, LOGNAME, USERNAME), else the OS account's; undefined when none is known. */
export function operatorName(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = env.USER || env.LOGNAME || env.USERNAME;
  if (named) return named;
  try {
    return os.userInfo().username || undefined;
  } catch {
    return undefined; // no entry for this uid (a container)
  }
}
