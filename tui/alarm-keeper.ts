import type { TelemetryClient } from '../client/client.js';
import { TelemetryClientError } from '../client/errors.js';
import type { AlarmAnswer } from '../lib/wire.js';
import { selectedAlarm } from './alarm-line.js';

// The console's alarms: GET /alarms every interval (a daemon without alarms, or an older one
// answering 404, shows no alarm line), the acknowledgement (`a`) and shelving (`S`) of the
// alarm the line shows, in the operator's name, and the terminal bell (`--bell`) when an
// alarm is newly raised.

/** How long `S` shelves an alarm (docs/console.md "Alarms"). */
export const SHELVE_FOR_S = 3600;
/** A note (what `a` or `S` did) stays this many polls, at least 3 s. */
const NOTE_POLLS = 3;

/** What the keeper runs on. */
export interface AlarmKeeperOptions {
  client: TelemetryClient;
  intervalMs: number;
  /** The operator's name (the OS user name), sent as `by`. */
  user: string;
  /** Ring the terminal bell when an alarm turns unacknowledged. */
  bell: boolean;
  ring(): void;
  /** The alarms or the note changed: draw. */
  changed(): void;
}

/** Keeps the daemon's alarms and acts on the one the alarm line shows. */
export class AlarmKeeper {
  private readonly o: AlarmKeeperOptions;
  private list: AlarmAnswer[] | undefined;
  private message = '';
  /** Polls left before the note goes (it is said for a few seconds). */
  private noteFor = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: AlarmKeeperOptions) {
    this.o = options;
  }

  /** The alarms as last read (undefined: none read, or the daemon has no /alarms). */
  get alarms(): readonly AlarmAnswer[] | undefined {
    return this.list;
  }

  /** What the last `a` or `S` did (`acknowledged by alice`, or why it failed); empty when nothing. */
  get note(): string {
    return this.message;
  }

  /** Read now, then every interval until stop(). */
  start(): void {
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * `a`: acknowledge the alarm the line shows, in the operator's name, as shown: its severity and
   * since go with it, so an alarm that went worse (or changed) since it was drawn is not
   * acknowledged: the line shows it as it is now and says so, and `a` again acknowledges that.
   */
  ack(): Promise<void> {
    return this.act('a', (alarm) => this.o.client.ack(alarm.id, { by: this.o.user, severity: alarm.severity, since: alarm.since }),
      (a) => `acknowledged ${a.id} as ${this.o.user}`);
  }

  /** `S`: shelve it for SHELVE_FOR_S seconds. */
  shelve(): Promise<void> {
    return this.act('S', ({ id }) => this.o.client.shelve(id, { by: this.o.user, forSeconds: SHELVE_FOR_S }), (a) => `shelved ${a.id} for 1h`);
  }

  private async act(key: string, call: (alarm: AlarmAnswer) => Promise<AlarmAnswer>, said: (a: AlarmAnswer) => string): Promise<void> {
    const alarm = this.list && selectedAlarm(this.list);
    if (!alarm) {
      this.say(`${key}: no alarm to act on`);
      return;
    }
    try {
      const answer = await call(alarm);
      this.list = this.list?.map((a) => (a.id === answer.id ? answer : a));
      this.say(said(answer));
    } catch (error) {
      const now = error instanceof TelemetryClientError && error.code === 'ALARM_CHANGED' ? error.answer?.alarm as AlarmAnswer | undefined : undefined;
      if (now) {
        // shown as it is now: the operator sees what `a` would acknowledge before pressing it again
        this.list = this.list?.map((a) => (a.id === now.id ? now : a));
        this.say(`${key}: ${now.id} changed to ${now.severity.toUpperCase()}, not acknowledged`);
        return;
      }
      this.say(`${key}: ${error instanceof TelemetryClientError ? error.detail : String(error)}`);
    }
  }

  private say(note: string): void {
    this.message = note;
    this.noteFor = NOTE_POLLS;
    this.o.changed();
  }

  private async poll(): Promise<void> {
    try {
      const next = (await this.o.client.alarms()).alarms;
      if (this.o.bell && this.list && next.some((a) => a.state === 'unack' && !this.list!.some((b) => b.id === a.id && b.state === 'unack'))) this.o.ring();
      this.list = next;
      if (this.noteFor > 0 && --this.noteFor === 0) this.message = '';
    } catch (error) {
      // a daemon without alarms (404): no line; a daemon away: the line keeps what it last said
      if (error instanceof TelemetryClientError && error.statusCode === 404) this.list = undefined;
    }
    if (this.stopped) return;
    this.o.changed();
    this.timer = setTimeout(() => void this.poll(), this.o.intervalMs);
  }
}
