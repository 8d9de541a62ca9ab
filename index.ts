// The package's public surface: `import { TelemetryClient } from 'meridian-telemetry'`.
export { TelemetryClient, TelemetryClientError, TelemetryConnectionError } from './client/index.js';
export type { TelemetryClientOptions, CurrentPoll, StartRunOptions, PostEventOptions } from './client/index.js';
export { siteDayKey } from './lib/day-key.js';
export type * from './lib/wire.js';
