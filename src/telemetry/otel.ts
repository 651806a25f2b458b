/**
 * The OpenTelemetry SDK, set up from the standard OTEL_* variables: a tracer whose spans (and a
 * meter whose metrics) are exported over OTLP/HTTP, protobuf or JSON. Loaded only when a run is
 * traced. The official packages do the exporting: they follow the OTLP specification (endpoints,
 * headers, retries, encodings) as collectors expect it, which a hand-written exporter would have
 * to chase.
 */
import { type Context, type Counter, type Histogram, ROOT_CONTEXT, type SpanContext, type Tracer, trace } from "@opentelemetry/api"
import { W3CTraceContextPropagator, setGlobalErrorHandler } from "@opentelemetry/core"
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources"
import { BatchSpanProcessor, type IdGenerator, RandomIdGenerator, type SpanExporter, type SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace"
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics"
import { VERSION } from "../version.ts"
import { Redactor, secretValues } from "../session/redact.ts"
import { RedactingProcessor } from "./redacting-processor.ts"

type Env = Record<string, string | undefined>

export interface Metrics {
  tokenUsage: Histogram
  operationDuration: Histogram
  agentDuration: Histogram
  toolDuration: Histogram
  cost: Counter
}

export interface Otel {
  tracer: Tracer
  metrics: Metrics
  /** The context runs start in: TRACEPARENT's trace when the environment names one. */
  root: Context
  /** Starts spans whose ids were made elsewhere (on an executor): the next span gets `spanId`. */
  withSpanId<T>(spanId: string, start: () => T): T
  /** The W3C trace context of a span, for the executor protocol. */
  traceContext(span: SpanContext): { traceparent: string; tracestate?: string }
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>
}

const SCOPE = "clanka"

/** An IdGenerator that hands out a given span id once, and random ids otherwise. */
class GivenIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator()
  given: string | undefined
  generateTraceId(): string {
    return this.random.generateTraceId()
  }
  generateSpanId(): string {
    const id = this.given
    this.given = undefined
    return id ?? this.random.generateSpanId()
  }
}

/** `warn`: export failures (one line per process); `say`: what is wrong with the settings. */
export async function startOtel(env: Env, warn: (line: string) => void, say: (line: string) => void): Promise<Otel> {
  // Export failures are one line for the user, never a stack trace or a crash.
  setGlobalErrorHandler((error) => {
    const message = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error)
    warn(`OpenTelemetry export failed: ${message.split("\n")[0]}`)
  })
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "clanka", "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }))
  const json = protocol(env, "TRACES", say) === "http/json"
  const ids = new GivenIdGenerator()
  // The agent's keys never leave in a span: replaced first, then exported.
  const processors: SpanProcessor[] = [new RedactingProcessor(new Redactor(secretValues(env)))]
  if (env.OTEL_TRACES_EXPORTER?.trim() !== "none") {
    const exporter: SpanExporter = json
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter()
      : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter()
    processors.push(new BatchSpanProcessor({ exporter }))
  }
  const tracerProvider = new TracerProvider({ resource, idGenerator: ids, spanProcessors: processors })

  // Metrics go where traces go, unless a metrics endpoint of their own is set.
  const readers = []
  if ((env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) && env.OTEL_METRICS_EXPORTER?.trim() !== "none") {
    const jsonMetrics = protocol(env, "METRICS", say) === "http/json"
    const exporter: PushMetricExporter = jsonMetrics
      ? new (await import("@opentelemetry/exporter-metrics-otlp-http")).OTLPMetricExporter()
      : new (await import("@opentelemetry/exporter-metrics-otlp-proto")).OTLPMetricExporter()
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL)
    readers.push(new PeriodicExportingMetricReader({ exporter, ...(interval > 0 ? { exportIntervalMillis: interval } : {}) }))
  }
  const meterProvider = new MeterProvider({ resource, readers })
  const meter = meterProvider.getMeter(SCOPE, VERSION)

  const propagator = new W3CTraceContextPropagator()
  const carrier: Record<string, string> = {}
  if (env.TRACEPARENT) carrier.traceparent = env.TRACEPARENT
  if (env.TRACESTATE) carrier.tracestate = env.TRACESTATE
  const root = propagator.extract(ROOT_CONTEXT, carrier, {
    get: (from, key) => (from as Record<string, string>)[key],
    keys: (from) => Object.keys(from as object),
  })

  return {
    tracer: tracerProvider.getTracer(SCOPE, VERSION),
    metrics: {
      tokenUsage: meter.createHistogram("gen_ai.client.token.usage", {
        unit: "{token}",
        description: "Number of input and output tokens used",
        advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] },
      }),
      operationDuration: meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration", advice: { explicitBucketBoundaries: SECONDS } }),
      agentDuration: meter.createHistogram("gen_ai.invoke_agent.duration", { unit: "s", description: "Duration of an agent run", advice: { explicitBucketBoundaries: SECONDS } }),
      toolDuration: meter.createHistogram("gen_ai.execute_tool.duration", { unit: "s", description: "Duration of a script (execute) or a tool call", advice: { explicitBucketBoundaries: SECONDS } }),
      cost: meter.createCounter("clanka.cost", { unit: "USD", description: "Cost of model requests, from clanka's price table" }),
    },
    root,
    withSpanId(spanId, start) {
      ids.given = spanId
      try {
        return start()
      } finally {
        ids.given = undefined
      }
    },
    traceContext(span) {
      const out: Record<string, string> = {}
      propagator.inject(trace.setSpanContext(ROOT_CONTEXT, span), out, { set: (to, key, value) => ((to as Record<string, string>)[key] = value) })
      return { traceparent: out.traceparent!, ...(out.tracestate ? { tracestate: out.tracestate } : {}) }
    },
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()])
    },
  }
}

const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92, 163.84, 327.68, 655.36]

/** http/protobuf (the default) or http/json; grpc is not offered: said once, and protobuf is used. */
function protocol(env: Env, signal: "TRACES" | "METRICS", warn: (line: string) => void): "http/protobuf" | "http/json" {
  const given = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf").trim()
  if (given === "http/json" || given === "http/protobuf") return given
  if (signal === "TRACES") warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${given} is not supported; exporting with http/protobuf (or set http/json)`)
  return "http/protobuf"
}
