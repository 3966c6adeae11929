/**
 * The Prometheus endpoint of a process: a small HTTP server answering `GET /metrics` with the
 * Prometheus exporter's text. It is a separate listener on METRICS_PORT, never the facade's public
 * port, so metrics (which reveal topology and load) stay on the network the scraper uses.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `host:port` (0 = any free port); rejects when the port cannot be bound. */
export async function startMetricsServer(exporter: PrometheusExporter, host: string, port: number): Promise<MetricsServer> {
  // The exporter reads the resource's attributes at each scrape; the detected ones (host, process)
  // settle asynchronously, and reading them before is an SDK error. Span export waits for them, but
  // a process may be scraped before it exported any span: the first scrape waits too.
  let settled: Promise<void> | undefined;
  const resourceSettled = (): Promise<void> =>
    (settled ??= exporter
      .collect()
      .then(({ resourceMetrics }) => resourceMetrics.resource.waitForAsyncAttributes?.())
      .catch(() => undefined));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      void resourceSettled().then(() => exporter.getMetricsRequestHandler(req, res));
      return;
    }
    res.statusCode = 404;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end('Not found: the metrics are at GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Scrapes are short; an idle keep-alive connection must not hold shutdown.
  server.keepAliveTimeout = 5_000;
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
