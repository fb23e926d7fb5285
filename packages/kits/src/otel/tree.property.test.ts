import {
  AbortedError,
  createDiagnostics,
  type DiagnosticSpan,
  type Diagnostics,
  TimeoutError,
  UnauthorizedError,
} from '@agent-core/core'
import * as otel from '@opentelemetry/api'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOtelSink } from './index.js'
import { createTracing, type Tracing } from './internal/testing/tracing.js'

let tracing: Tracing
beforeAll(() => {
  tracing = createTracing()
})
afterAll(() => tracing.shutdown())

type Outcome = 'ok' | 'error' | 'aborted' | 'timeout'
const failures: Record<Exclude<Outcome, 'ok'>, () => Error> = {
  error: () => new UnauthorizedError('not allowed'),
  aborted: () => new AbortedError('stopped'),
  timeout: () => new TimeoutError('too slow'),
}

/**
 * A random forest of spans (node `i`'s parent is an earlier node or none), all under one scope path so
 * that only span ids can tell siblings apart, run in a random interleaving: a child starts while its
 * parent is open, spans end in any order once their children have started, plain events land on any open
 * span. The reference model is the forest itself.
 */
const forest = fc
  .array(fc.tuple(fc.nat(), fc.constantFrom<Outcome>('ok', 'error', 'aborted', 'timeout')), {
    minLength: 1,
    maxLength: 12,
  })
  .map((nodes) => nodes.map(([pick, outcome], i) => ({ parent: (pick % (i + 1)) - 1, outcome })))

describe('the span tree, against a reference model', () => {
  it('every span nests under its own parent, ends once with its outcome, and keeps its events', () => {
    fc.assert(
      fc.property(forest, fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (nodes, choices) => {
        tracing.exporter.reset()
        const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider })
        const root: Diagnostics = createDiagnostics({ sink: tracer.sink, scope: ['app'] })
        const open = new Map<number, DiagnosticSpan>()
        const done = new Set<number>()
        const events = nodes.map(() => 0)
        const childrenOf = (i: number) => nodes.flatMap((node, j) => (node.parent === i ? [j] : []))
        for (let step = 0; done.size < nodes.length; step++) {
          const actions: (() => void)[] = []
          nodes.forEach((node, i) => {
            if (open.has(i) || done.has(i)) return
            const parent = node.parent === -1 ? undefined : open.get(node.parent)
            if (node.parent !== -1 && parent === undefined) return
            actions.push(() => {
              // The same span name and scope for every node: siblings share a scope path.
              open.set(i, (parent?.diagnostics ?? root).span('tool-call', { toolId: `n${i}` }))
            })
          })
          for (const [i, span] of open) {
            // At most a few events per span, so that every interleaving comes to an end.
            if ((events[i] ?? 0) < 3)
              actions.push(() => {
                span.diagnostics.emit('phase-enter', { phase: 'execute' })
                events[i] = (events[i] ?? 0) + 1
              })
            if (childrenOf(i).every((child) => open.has(child) || done.has(child))) {
              actions.push(() => {
                const outcome = nodes[i]?.outcome ?? 'ok'
                if (outcome === 'ok') span.end('ok')
                else span.fail(failures[outcome]())
                open.delete(i)
                done.add(i)
              })
            }
          }
          actions[(choices[step % choices.length] ?? 0) % actions.length]?.()
        }

        const spans = tracing.spans()
        expect(spans).toHaveLength(nodes.length)
        expect(tracer.stats).toMatchObject({ open: 0, ended: nodes.length, unfinished: 0, ignored: 0 })
        const byNode = new Map(spans.map((span) => [span.attributes['gen_ai.tool.name'], span]))
        nodes.forEach((node, i) => {
          const span = byNode.get(`n${i}`)
          expect(span?.name).toBe(`execute_tool n${i}`)
          const parentId = span?.parentSpanContext?.spanId
          if (node.parent === -1) expect(parentId).toBeUndefined()
          else expect(parentId).toBe(byNode.get(`n${node.parent}`)?.spanContext().spanId)
          expect(span?.attributes['agent_core.outcome']).toBe(node.outcome)
          expect(span?.status.code).toBe(
            node.outcome === 'ok' ? otel.SpanStatusCode.UNSET : otel.SpanStatusCode.ERROR,
          )
          if (node.outcome !== 'ok') expect(span?.status.message).toMatch(new RegExp(`^${node.outcome}: `))
          if (node.outcome === 'error') expect(span?.attributes['agent_core.error.code']).toBe('unauthorized')
          expect(span?.events.filter((event) => event.name === 'phase-enter')).toHaveLength(events[i] ?? 0)
        })
      }),
      { numRuns: 200 },
    )
  })
})
