import type { AlpacaDevice } from './device.js';
import { safetyMonitor, type VerdictSource } from './safety-monitor.js';

// The devices the Alpaca server serves, made once at start-up: SafetyMonitor 0 always (its
// IsSafe the verdict, false without [safety]).

/** The device types served, as their UniqueIDs are kept. */
export const SERVED_TYPES = ['SafetyMonitor'] as const;

/** Every served device. */
export function alpacaDevices(deps: { verdict: VerdictSource; version: string; now: () => number; uniqueIds: Readonly<Record<string, string>> }): AlpacaDevice[] {
  const common = {
    driverInfo: `Meridian ${deps.version}: a Meridian telemetry daemon's safety verdict and observing conditions over ASCOM Alpaca`,
    driverVersion: deps.version.split('.').slice(0, 2).join('.'),
    now: deps.now,
  };
  return [safetyMonitor(deps.verdict, common, deps.uniqueIds.SafetyMonitor!)];
}
