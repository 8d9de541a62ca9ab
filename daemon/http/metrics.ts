import type { AppDeps, Handler } from './route.js';

// GET /metrics: the Prometheus text exposition of the daemon's registry.

/** Handler of GET /metrics. */
export function metricsHandlers({ metrics }: AppDeps): Record<'scrape', Handler> {
  return {
    scrape: async (_req, res) => {
      const { contentType, text } = await metrics.exposition();
      res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    },
  };
}
