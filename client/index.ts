// The client library's public surface.
export {
  TelemetryClient, type TelemetryClientOptions, type CurrentFilter, type CurrentPoll, type StartRunOptions, type PostEventOptions,
  type BatchEvent, type PostEventsOptions, type PostEventTextOptions, type HistoryOptions, type HistoryPage, type HistoryTextPage, type StreamMessage, type StreamOptions,
  type RollupOptions,
} from './client.js';
export { TelemetryAnswerError, TelemetryClientError, TelemetryConnectionError } from './errors.js';
export type { AckOptions, ShelveOptions } from './alarms.js';
