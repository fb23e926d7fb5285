/**
 * Test fixtures: a real OpenTelemetry SDK tracer (BasicTracerProvider, SimpleSpanProcessor,
 * InMemorySpanExporter) and the exported spans as a tree. Private to the tests.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'

export interface Tracing {
  readonly provider: BasicTracerProvider
  readonly exporter: InMemorySpanExporter
  /** Finished spans, in end order. */
  spans(): ReadableSpan[]
  /** Finished spans as trees (children in start order), roots in start order. */
  tree(pick?: readonly string[], order?: 'start' | 'name'): SpanNode[]
  shutdown(): Promise<void>
}

export interface SpanNode {
  readonly name: string
  readonly attributes?: Record<string, AttributeValue | undefined>
  readonly status?: string
  readonly children: SpanNode[]
}

export function createTracing(): Tracing {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return {
    provider,
    exporter,
    spans: () => exporter.getFinishedSpans(),
    tree: (pick, order) => spanTree(exporter.getFinishedSpans(), pick, order),
    shutdown: () => provider.shutdown(),
  }
}

const STATUS = ['unset', 'ok', 'error']

/** Compares start times ([seconds, nanoseconds]: their sum in ns is past 2^53). */
function byStart(a: ReadableSpan, b: ReadableSpan): number {
  return a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]
}

/**
 * Builds the trees of `spans`; `pick` lists the attributes each node shows (none when omitted). Siblings
 * come in start order, or (`order: 'name'`, for parallel work) by name, then start.
 */
export function spanTree(
  spans: readonly ReadableSpan[],
  pick: readonly string[] = [],
  order: 'start' | 'name' = 'start',
): SpanNode[] {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
  const ordered = [...spans].sort(byStart)
  if (order === 'name') ordered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const node = (span: ReadableSpan): SpanNode => {
    const children = ordered
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .map(node)
    const attributes = pickAttributes(span.attributes, pick)
    return {
      name: span.name,
      ...(attributes ? { attributes } : {}),
      ...(span.status.code === 2 ? { status: `error: ${span.status.message ?? ''}` } : {}),
      children,
    }
  }
  return ordered
    .filter((span) => span.parentSpanContext === undefined || !byId.has(span.parentSpanContext.spanId))
    .map(node)
}

function pickAttributes(attributes: Attributes, pick: readonly string[]) {
  const picked: Record<string, AttributeValue | undefined> = {}
  let any = false
  for (const key of pick) {
    if (attributes[key] !== undefined) {
      picked[key] = attributes[key]
      any = true
    }
  }
  return any ? picked : undefined
}

export function statusName(span: ReadableSpan): string {
  return STATUS[span.status.code] ?? String(span.status.code)
}

/** The one finished span named `name` (throws when there are none or several). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name)
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}`)
  return found[0] as ReadableSpan
}
