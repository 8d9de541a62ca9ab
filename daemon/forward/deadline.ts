// Bounded waits: a delivery that must be acknowledged in time, a shutdown that must end.

/** `promise`, or a rejection with `message` once `ms` have passed (`onTimeout` is called then). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string, onTimeout: () => void = () => {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(message));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Wait for `promise` (whatever its outcome), but no longer than `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}
