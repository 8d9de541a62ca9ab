// The client library's public surface.
export { TelemetryClient, type TelemetryClientOptions, type CurrentPoll, type StartRunOptions, type PostEventOptions,
  type BatchEvent, type PostEventsOptions } from './client.js';
export { TelemetryClientError, TelemetryConnectionError } from './errors.js';
