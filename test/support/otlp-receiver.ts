/**
 * An OTLP/HTTP receiver for tests: accepts real exports on /v1/traces and /v1/metrics in both
 * encodings (application/x-protobuf and application/json) and keeps them in one plain form, so a
 * test reads spans and metrics the same way whatever the exporter sent. Protobuf is decoded by the
 * small wire reader below, following the OTLP .proto field numbers (opentelemetry-proto v1); the
 * official JS packages export serializers but no request decoder.
 *
 *   const otlp = await startOtlpReceiver()
 *   clanka([...], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } })
 *   otlp.spans / otlp.metrics / otlp.requests   …   await otlp.close()
 */

export interface ReceivedSpan {
  traceId: string
  spanId: string
  /** "" for a root span. */
  parentSpanId: string
  traceState: string
  name: string
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number
  startNs: bigint
  endNs: bigint
  attributes: Record<string, unknown>
  /** code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string }
  resource: Record<string, unknown>
  scope: string
}

export interface ReceivedPoint {
  attributes: Record<string, unknown>
  /** Sums and gauges. */
  value?: number
  /** Histograms. */
  count?: number
  sum?: number
}

export interface ReceivedMetric {
  name: string
  unit: string
  kind: "sum" | "gauge" | "histogram" | "other"
  points: ReceivedPoint[]
  resource: Record<string, unknown>
}

export interface OtlpRequest {
  path: string
  contentType: string
  headers: Record<string, string>
}

export interface OtlpReceiver {
  /**
   * `http://127.0.0.1:PORT/TOKEN`: what OTEL_EXPORTER_OTLP_ENDPOINT takes. Only requests under the
   * token count: a clanka of another test (or of another suite on the machine) that exports late
   * to a port since reused reaches no receiver of this test.
   */
  url: string
  spans: ReceivedSpan[]
  metrics: ReceivedMetric[]
  requests: OtlpRequest[]
  close(): Promise<void>
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const metrics: ReceivedMetric[] = []
  const requests: OtlpRequest[] = []
  const token = `/r${crypto.randomUUID().slice(0, 8)}`
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const full = new URL(request.url).pathname
      if (!full.startsWith(`${token}/`)) return new Response("not this receiver", { status: 404 })
      const path = full.slice(token.length)
      const contentType = request.headers.get("content-type") ?? ""
      requests.push({ path, contentType, headers: Object.fromEntries(request.headers) })
      const body = new Uint8Array(await request.arrayBuffer())
      const json = contentType.startsWith("application/json")
      if (!json && !contentType.startsWith("application/x-protobuf")) return new Response("unsupported content type", { status: 415 })
      if (path === "/v1/traces") spans.push(...(json ? tracesFromJson(JSON.parse(new TextDecoder().decode(body))) : tracesFromProtobuf(body)))
      else if (path === "/v1/metrics") metrics.push(...(json ? metricsFromJson(JSON.parse(new TextDecoder().decode(body))) : metricsFromProtobuf(body)))
      else return new Response("not found", { status: 404 })
      // An empty Export…ServiceResponse: full success.
      return json ? Response.json({}) : new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}${token}`,
    spans,
    metrics,
    requests,
    close: async () => void (await server.stop(true)),
  }
}

/**
 * A collector that cannot be reached: every connection to its port is closed at once, and the
 * port stays this test's until close() (a closed receiver's port could be another's meanwhile).
 */
export function startUnreachableCollector(): { url: string; close(): void } {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (socket) => void socket.terminate(), data: () => {} } })
  return { url: `http://127.0.0.1:${listener.port}`, close: () => listener.stop(true) }
}

// ---------------------------------------------------------------------------------------------
// Protobuf: just enough of the wire format for the OTLP export requests.

type Field = { number: number; wire: number; varint?: bigint; bytes?: Uint8Array; fixed?: DataView }

function fields(buffer: Uint8Array): Field[] {
  const out: Field[] = []
  let at = 0
  const varint = (): bigint => {
    let result = 0n
    let shift = 0n
    while (true) {
      const byte = buffer[at++]!
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
      shift += 7n
    }
  }
  while (at < buffer.length) {
    const key = Number(varint())
    const number = key >>> 3
    const wire = key & 7
    if (wire === 0) out.push({ number, wire, varint: varint() })
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4
      out.push({ number, wire, fixed: new DataView(buffer.buffer, buffer.byteOffset + at, size) })
      at += size
    } else if (wire === 2) {
      const length = Number(varint())
      out.push({ number, wire, bytes: buffer.subarray(at, at + length) })
      at += length
    } else throw new Error(`protobuf wire type ${wire} is not expected in OTLP`)
  }
  return out
}

const text = (field: Field | undefined) => (field?.bytes ? new TextDecoder().decode(field.bytes) : "")
const hex = (field: Field | undefined) => (field?.bytes ? Buffer.from(field.bytes).toString("hex") : "")
const fixed64 = (field: Field | undefined) => (field?.fixed ? field.fixed.getBigUint64(0, true) : 0n)
const double = (field: Field | undefined) => (field?.fixed ? field.fixed.getFloat64(0, true) : 0)
const all = (list: Field[], number: number) => list.filter((field) => field.number === number)
const one = (list: Field[], number: number) => list.find((field) => field.number === number)

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array, 6 kvlist, 7 bytes. */
function anyValue(bytes: Uint8Array): unknown {
  const field = fields(bytes)[0]
  if (!field) return null
  switch (field.number) {
    case 1:
      return text(field)
    case 2:
      return field.varint !== 0n
    case 3:
      return Number(BigInt.asIntN(64, field.varint!))
    case 4:
      return double(field)
    case 5:
      return all(fields(field.bytes!), 1).map((item) => anyValue(item.bytes!))
    case 6:
      return keyValues(fields(field.bytes!), 1)
    default:
      return hex(field)
  }
}

/** Repeated KeyValue {1 key, 2 value}. */
function keyValues(list: Field[], number: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const item of all(list, number)) {
    const pair = fields(item.bytes!)
    out[text(one(pair, 1))] = anyValue(one(pair, 2)?.bytes ?? new Uint8Array(0))
  }
  return out
}

/** Resource {1 attributes}. */
function resourceOf(field: Field | undefined): Record<string, unknown> {
  return field?.bytes ? keyValues(fields(field.bytes), 1) : {}
}

/** ExportTraceServiceRequest {1 ResourceSpans {1 resource, 2 ScopeSpans {1 scope, 2 Span}}}. */
function tracesFromProtobuf(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = []
  for (const resourceSpans of all(fields(body), 1)) {
    const rs = fields(resourceSpans.bytes!)
    const resource = resourceOf(one(rs, 1))
    for (const scopeSpans of all(rs, 2)) {
      const ss = fields(scopeSpans.bytes!)
      const scopeField = one(ss, 1)
      const scope = scopeField?.bytes ? text(one(fields(scopeField.bytes), 1)) : ""
      for (const spanField of all(ss, 2)) {
        // Span {1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind, 7 start, 8 end, 9 attributes, 15 status}
        const span = fields(spanField.bytes!)
        const status = one(span, 15)?.bytes ? fields(one(span, 15)!.bytes!) : []
        out.push({
          traceId: hex(one(span, 1)),
          spanId: hex(one(span, 2)),
          traceState: text(one(span, 3)),
          parentSpanId: hex(one(span, 4)),
          name: text(one(span, 5)),
          kind: Number(one(span, 6)?.varint ?? 0n),
          startNs: fixed64(one(span, 7)),
          endNs: fixed64(one(span, 8)),
          attributes: keyValues(span, 9),
          // Status {2 message, 3 code}
          status: { code: Number(one(status, 3)?.varint ?? 0n), message: text(one(status, 2)) },
          resource,
          scope,
        })
      }
    }
  }
  return out
}

/**
 * ExportMetricsServiceRequest {1 ResourceMetrics {1 resource, 2 ScopeMetrics {2 Metric}}}; Metric
 * {1 name, 3 unit, 5 gauge, 7 sum, 9 histogram}; NumberDataPoint {7 attributes, 4 as_double, 6
 * as_int}; HistogramDataPoint {9 attributes, 4 count, 5 sum}.
 */
function metricsFromProtobuf(body: Uint8Array): ReceivedMetric[] {
  const out: ReceivedMetric[] = []
  for (const resourceMetrics of all(fields(body), 1)) {
    const rm = fields(resourceMetrics.bytes!)
    const resource = resourceOf(one(rm, 1))
    for (const scopeMetrics of all(rm, 2)) {
      for (const metricField of all(fields(scopeMetrics.bytes!), 2)) {
        const metric = fields(metricField.bytes!)
        const data = one(metric, 5) ?? one(metric, 7) ?? one(metric, 9)
        const kind = data?.number === 5 ? "gauge" : data?.number === 7 ? "sum" : data?.number === 9 ? "histogram" : "other"
        const points = data?.bytes
          ? all(fields(data.bytes), 1).map((pointField): ReceivedPoint => {
              const point = fields(pointField.bytes!)
              if (kind === "histogram") return { attributes: keyValues(point, 9), count: Number(fixed64(one(point, 4))), sum: double(one(point, 5)) }
              const asInt = one(point, 6)
              return { attributes: keyValues(point, 7), value: asInt ? Number(asInt.fixed!.getBigInt64(0, true)) : double(one(point, 4)) }
            })
          : []
        out.push({ name: text(one(metric, 1)), unit: text(one(metric, 3)), kind, points, resource })
      }
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// JSON (OTLP/JSON: ids in hex, 64-bit integers possibly as strings, enums as numbers).

type Json = any

function jsonValue(value: Json): unknown {
  if (!value) return null
  if ("stringValue" in value) return value.stringValue
  if ("boolValue" in value) return value.boolValue
  if ("intValue" in value) return Number(value.intValue)
  if ("doubleValue" in value) return Number(value.doubleValue)
  if ("arrayValue" in value) return (value.arrayValue.values ?? []).map(jsonValue)
  if ("kvlistValue" in value) return jsonAttributes(value.kvlistValue.values)
  if ("bytesValue" in value) return value.bytesValue
  return null
}

function jsonAttributes(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((pair: Json) => [pair.key, jsonValue(pair.value)]))
}

function tracesFromJson(body: Json): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs: Json) =>
    (rs.scopeSpans ?? []).flatMap((ss: Json) =>
      (ss.spans ?? []).map(
        (span: Json): ReceivedSpan => ({
          traceId: span.traceId ?? "",
          spanId: span.spanId ?? "",
          traceState: span.traceState ?? "",
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: Number(span.kind ?? 0),
          startNs: BigInt(span.startTimeUnixNano ?? 0),
          endNs: BigInt(span.endTimeUnixNano ?? 0),
          attributes: jsonAttributes(span.attributes),
          status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? "" },
          resource: jsonAttributes(rs.resource?.attributes),
          scope: ss.scope?.name ?? "",
        }),
      ),
    ),
  )
}

function metricsFromJson(body: Json): ReceivedMetric[] {
  return (body.resourceMetrics ?? []).flatMap((rm: Json) =>
    (rm.scopeMetrics ?? []).flatMap((sm: Json) =>
      (sm.metrics ?? []).map((metric: Json): ReceivedMetric => {
        const kind = metric.histogram ? "histogram" : metric.sum ? "sum" : metric.gauge ? "gauge" : "other"
        const data = metric.histogram ?? metric.sum ?? metric.gauge
        return {
          name: metric.name,
          unit: metric.unit ?? "",
          kind,
          points: (data?.dataPoints ?? []).map((point: Json): ReceivedPoint =>
            kind === "histogram"
              ? { attributes: jsonAttributes(point.attributes), count: Number(point.count ?? 0), sum: Number(point.sum ?? 0) }
              : { attributes: jsonAttributes(point.attributes), value: Number(point.asDouble ?? point.asInt ?? 0) },
          ),
          resource: jsonAttributes(rm.resource?.attributes),
        }
      }),
    ),
  )
}

/** The spans as a tree of names, children in start order: `name [attr=value]` lines, indented. */
export function spanTree(spans: ReceivedSpan[], label: (span: ReceivedSpan) => string = (span) => span.name): string[] {
  const ids = new Set(spans.map((span) => span.spanId))
  const children = (parent: string) =>
    spans.filter((span) => (parent === "" ? !ids.has(span.parentSpanId) : span.parentSpanId === parent)).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
  const lines: string[] = []
  const walk = (parent: string, depth: number) => {
    for (const span of children(parent)) {
      lines.push(`${"  ".repeat(depth)}${label(span)}`)
      walk(span.spanId, depth + 1)
    }
  }
  walk("", 0)
  return lines
}
