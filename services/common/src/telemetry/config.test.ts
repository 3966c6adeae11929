import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTelemetryConfig } from './config.js';

describe('telemetry configuration', () => {
  it('defaults: Prometheus on 9464, spans made but not exported', () => {
    const c = loadTelemetryConfig('tts-facade', {});
    assert.deepEqual([c.serviceName, c.disabled, c.metricsEnabled, c.metricsPort, c.metricsHost, c.traceExporters, c.warnings], ['tts-facade', false, true, 9464, '127.0.0.1', [], []]);
  });

  it('reads the standard variables: OTLP when an endpoint or exporter is named, none, disabled, service name', () => {
    assert.deepEqual(loadTelemetryConfig('x', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).traceExporters, ['otlp']);
    assert.deepEqual(loadTelemetryConfig('x', { OTEL_TRACES_EXPORTER: 'otlp,console' }).traceExporters, ['otlp', 'console']);
    assert.deepEqual(loadTelemetryConfig('x', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).traceExporters, []);
    assert.equal(loadTelemetryConfig('x', { OTEL_SDK_DISABLED: 'true' }).disabled, true);
    assert.equal(loadTelemetryConfig('x', { OTEL_SERVICE_NAME: 'custom' }).serviceName, 'custom');
    assert.equal(loadTelemetryConfig('x', { METRICS_PORT: '0' }).metricsEnabled, false);
  });

  it('never throws: a bad value is a warning and its default', () => {
    const c = loadTelemetryConfig('x', { METRICS_PORT: 'ninety', OTEL_SDK_DISABLED: 'perhaps', OTEL_TRACES_EXPORTER: 'jaeger' });
    assert.deepEqual([c.metricsPort, c.disabled, c.traceExporters], [9464, false, []]);
    assert.equal(c.warnings.length, 3);
    assert.ok(c.warnings.some((w) => w.includes('METRICS_PORT')) && c.warnings.some((w) => w.includes('jaeger')));
  });
});
