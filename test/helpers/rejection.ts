import * as assert from 'uvu/assert';

/** What `promise` rejects with; a promise that resolves fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then((value) => assert.unreachable(`resolved with ${JSON.stringify(value)}`), (error: unknown) => error);
}
