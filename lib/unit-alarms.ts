import type { AlarmAnswer, AlarmSeverity } from './wire.js';

// A unit's alarms in one line, as the fleet's units table holds them (docs/fleet.md): the
// worst standing alarm's severity and id, and how many wait for an acknowledgement. The daemon
// takes it from its alarm engine and hands it to the PostgreSQL sink; `telemetry fleet` shows it.

/** A unit's alarms summed up (null where the unit has no [[alarm]] configured). */
export interface UnitAlarms {
  /** The worst severity of the alarms standing (unack, acked, rtn_unack); `none` when none stands. */
  severity: AlarmSeverity | 'none';
  /** How many alarms wait for an acknowledgement (unack, rtn_unack). */
  unacked: number;
  /** The id of the worst standing alarm (an unacknowledged one before an acknowledged one of its severity); null when none stands. */
  id: string | null;
}

const RANK: Readonly<Record<AlarmSeverity, number>> = { warning: 0, serious: 1, critical: 2 };

/** The summary of a unit's alarms as GET /alarms lists them (a shelved alarm counts for nothing: it was put aside on purpose). */
export function unitAlarms(alarms: readonly AlarmAnswer[]): UnitAlarms {
  const unacked = (a: AlarmAnswer) => a.state === 'unack' || a.state === 'rtn_unack';
  const standing = alarms.filter((a) => unacked(a) || a.state === 'acked');
  const worst = standing.reduce<AlarmAnswer | undefined>((w, a) => {
    if (w === undefined) return a;
    const by = RANK[a.severity] - RANK[w.severity] || Number(unacked(a)) - Number(unacked(w)) || (a.id < w.id ? 1 : -1);
    return by > 0 ? a : w;
  }, undefined);
  return { severity: worst?.severity ?? 'none', unacked: alarms.filter(unacked).length, id: worst?.id ?? null };
}

/** The rank of a summary for ordering units: higher needs a look sooner (an unacknowledged alarm above an acknowledged one of its severity); -1 for none or not configured. */
export function alarmRank(a: UnitAlarms | null): number {
  if (a === null || a.severity === 'none') return -1;
  return RANK[a.severity] * 2 + (a.unacked > 0 ? 1 : 0);
}
