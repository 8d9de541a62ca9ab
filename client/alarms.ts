import type { AlarmAnswer, AlarmSeverity, AlarmsAnswer } from '../lib/wire.js';
import { shapedAnswer, type AnswerShape, type ShapeAnswers } from './answer-shape.js';

// The alarm methods of TelemetryClient (docs/client.md "Alarms"), in a file of their own: the
// client's class extends this one, which sends through the client's one request path.

/** What `ack()` takes besides the alarm's id. */
export interface AckOptions {
  /** Who acknowledges (required by the daemon, at most 64 characters). */
  by: string;
  /** A note kept in the acknowledgement's event. */
  note?: string;
  /** The severity the caller saw: the daemon refuses (409 ALARM_CHANGED) when the alarm has another now. */
  severity?: AlarmSeverity;
  /** The alarm's `since` the caller saw: the daemon refuses (409 ALARM_CHANGED) when it moved since. */
  since?: string;
}

/** What `shelve()` takes besides the alarm's id. */
export interface ShelveOptions {
  by: string;
  /** How long, in seconds (more than 0, at most 7 days). */
  forSeconds: number;
}

/** The HTTP methods the alarm calls use. */
export type AlarmMethod = 'GET' | 'POST' | 'DELETE';

/** The alarm methods; the client supplies `call`. */
export abstract class AlarmMethods {
  /** The base URL requests go to. */
  abstract readonly baseUrl: string;

  protected abstract call<T>(method: AlarmMethod, path: string, body?: Record<string, unknown>): Promise<T>;

  /** `call`, its answer held to `shape` (a TelemetryAnswerError when it is not that). */
  protected async shaped<S extends AnswerShape>(shape: S, method: AlarmMethod, path: string, body?: Record<string, unknown>): Promise<ShapeAnswers[S]> {
    return shapedAnswer(shape, await this.call<unknown>(method, path, body), { method, url: `${this.baseUrl}/${path}` });
  }

  /** GET /alarms: every configured alarm, worst severity first. */
  alarms(): Promise<AlarmsAnswer> {
    return this.shaped('a list of alarms', 'GET', 'alarms');
  }

  /** GET /alarms/{id}: one alarm (404 UNKNOWN_ALARM). */
  alarm(id: string): Promise<AlarmAnswer> {
    return this.shaped('an alarm', 'GET', `alarms/${encodeURIComponent(id)}`);
  }

  /** POST /alarms/{id}/ack: acknowledge (409 ALARM_NOT_UNACKED when there is nothing to acknowledge, ALARM_CHANGED when it is not what the caller saw). */
  ack(id: string, options: AckOptions): Promise<AlarmAnswer> {
    const { by, note, severity, since } = options;
    return this.shaped('an alarm', 'POST', `alarms/${encodeURIComponent(id)}/ack`, {
      by, ...(note === undefined ? {} : { note }), ...(severity === undefined ? {} : { severity }), ...(since === undefined ? {} : { since }),
    });
  }

  /** POST /alarms/{id}/shelve: no transitions and no escalation for `forSeconds`. */
  shelve(id: string, options: ShelveOptions): Promise<AlarmAnswer> {
    return this.shaped('an alarm', 'POST', `alarms/${encodeURIComponent(id)}/shelve`, { by: options.by, for_s: options.forSeconds });
  }

  /** DELETE /alarms/{id}/shelve: unshelve now (409 ALARM_NOT_SHELVED when it is not shelved). */
  unshelve(id: string, options: { by?: string } = {}): Promise<AlarmAnswer> {
    return this.shaped('an alarm', 'DELETE', `alarms/${encodeURIComponent(id)}/shelve`, options.by === undefined ? undefined : { by: options.by });
  }
}
