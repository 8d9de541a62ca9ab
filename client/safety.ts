import type { SafetyAnswer } from '../lib/wire.js';
import { AlarmMethods } from './alarms.js';

// The safety verdict's methods of TelemetryClient (docs/client.md), in a file of their own like
// the alarms': the client's class extends this one and supplies its one request path.

/** The safety methods (and, through AlarmMethods, the alarm ones); the client supplies `call` and `text`. */
export abstract class SafetyMethods extends AlarmMethods {
  /** GET `path` as the daemon's text. */
  protected abstract text(path: string): Promise<string>;

  /** GET /safety: the safety verdict, its reasons and inputs (unsafe and `configured: false` without a [safety] section). */
  safety(): Promise<SafetyAnswer> {
    return this.shaped('a safety verdict', 'GET', 'safety');
  }

  /** GET /safety as the daemon's text (the inputs' values as recorded, never re-spelled). */
  safetyText(): Promise<string> {
    return this.text('safety');
  }
}
