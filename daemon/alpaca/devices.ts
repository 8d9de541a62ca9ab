import type { ConditionsConfig } from '../conditions/config.js';
import type { ConditionValue } from '../conditions/read.js';
import type { ConditionProperty } from '../conditions/units.js';
import type { AlpacaDevice } from './device.js';
import { observingConditions, SENSOR_NAMES } from './observing-conditions.js';
import { safetyMonitor, type VerdictSource } from './safety-monitor.js';

// The devices the Alpaca server serves, made once at start-up: SafetyMonitor 0 always (its
// IsSafe the verdict, false without [safety]); ObservingConditions 0 when [conditions] maps
// at least one property.

/** The device types served with this mapping, as their UniqueIDs are kept. */
export function servedTypes(conditions: ConditionsConfig): string[] {
  return conditions.mappings.length > 0 ? ['SafetyMonitor', 'ObservingConditions'] : ['SafetyMonitor'];
}

/** Every served device. */
export function alpacaDevices(deps: {
  verdict: VerdictSource; conditions: ConditionsConfig; readConditions: () => ConditionValue[];
  version: string; now: () => number; uniqueIds: Readonly<Record<string, string>>;
}): AlpacaDevice[] {
  const common = {
    driverInfo: `Meridian ${deps.version}: a Meridian telemetry daemon's safety verdict and observing conditions over ASCOM Alpaca`,
    driverVersion: deps.version.split('.').slice(0, 2).join('.'),
    now: deps.now,
  };
  const devices = [safetyMonitor(deps.verdict, common, deps.uniqueIds.SafetyMonitor!)];
  if (deps.conditions.mappings.length > 0) {
    devices.push(observingConditions(deps.readConditions, sensorDescriptions(deps.conditions), common, deps.uniqueIds.ObservingConditions!));
  }
  return devices;
}

/** SensorDescription of each mapped property: where it is read and in which units; a computed dew point says so. */
function sensorDescriptions(conditions: ConditionsConfig): Map<ConditionProperty, string> {
  const descriptions = new Map<ConditionProperty, string>(conditions.mappings.map((m) => [m.property,
    `${m.type} ${m.field} (${m.unit === m.canonical ? m.canonical : `recorded in ${m.unit}, published in ${m.canonical}`})`]));
  if (!descriptions.has('dewpoint') && descriptions.has('temperature') && descriptions.has('humidity')) {
    descriptions.set('dewpoint', `computed from ${SENSOR_NAMES.temperature} and ${SENSOR_NAMES.humidity} (Magnus; degC)`);
  }
  return descriptions;
}
