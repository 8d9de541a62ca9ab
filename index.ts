// The package's public surface: `import { TelemetryClient } from 'meridian-telemetry'`.
export { TelemetryAnswerError, TelemetryClient, TelemetryClientError, TelemetryConnectionError } from './client/index.js';
export type {
  TelemetryClientOptions, CurrentFilter, CurrentPoll, StartRunOptions, PostEventOptions, BatchEvent, PostEventsOptions,
  HistoryOptions, HistoryPage, StreamMessage, StreamOptions,
} from './client/index.js';
export { startTelemetryServer, TelemetryServer } from './launcher/launcher.js';
export type { TelemetryServerOptions } from './launcher/launcher.js';
export { TelemetryStartError } from './launcher/launch-failure.js';
export { siteDayKey } from './lib/day-key.js';
export { ConfigError } from './lib/errors.js';
export type * from './lib/wire.js';
