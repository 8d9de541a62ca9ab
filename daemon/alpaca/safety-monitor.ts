import type { VerdictState } from '../safety/verdict-event.js';
import { AlpacaDevice, type DeviceSpec } from './device.js';

// The SafetyMonitor device (ISafetyMonitorV3): IsSafe is the daemon's safety verdict and
// nothing else. Fail-safe: no [safety] section, an unsafe verdict or a stale or missing
// required input (the verdict judges those unsafe) all read false; not connected reads
// NotConnected (0x407), never true.

/** What the SafetyMonitor reads: the verdict now (judged again when asked) and whether [safety] configured one. */
export interface VerdictSource {
  current(): VerdictState;
  readonly configured: boolean;
}

/** The SafetyMonitor device 0 over the verdict. */
export function safetyMonitor(verdict: VerdictSource, common: Pick<DeviceSpec, 'driverInfo' | 'driverVersion' | 'now'>, uniqueId: string): AlpacaDevice {
  const isSafe = () => verdict.configured && verdict.current().safe;
  const device: AlpacaDevice = new AlpacaDevice({
    ...common,
    deviceType: 'SafetyMonitor',
    number: 0,
    name: 'Meridian safety',
    description: 'The safety verdict of a Meridian telemetry daemon',
    interfaceVersion: 3,
    uniqueId,
    members: {
      issafe: {
        get: () => {
          device.requireConnected();
          return isSafe();
        },
      },
    },
    state: () => [{ Name: 'IsSafe', Value: isSafe() }],
  });
  return device;
}
