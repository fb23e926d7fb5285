import { describeValue, refuseField } from '@agent-core/core'
import { type ConformanceReply, toolResultsText } from './replies.js'

/**
 * What {@link scriptMockGPT} needs of MockGPT: its `script` method (`server.mock` of
 * `startMockGPTServer`, or a `createMockGPT()` engine). Typed by shape, so this subpath does not depend
 * on `@agent-core/mock`.
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * import type { MockGPTScriptTarget } from '@agent-core/kits/models/testing'
 *
 * const server = await startMockGPTServer()
 * const target: MockGPTScriptTarget = server.mock
 * await server.close()
 * ```
 */
export interface MockGPTScriptTarget {
  /** Appends script entries (MockGPT's `mock.script(...entries)`). */
  script(...entries: never[]): unknown
}

/** The request view fields a `tool-results` reply reads (a subset of MockGPT's `MockRequestView`). */
interface ToolResultsView {
  readonly toolResults: readonly { readonly name: string; readonly output: string }[]
}

/** The MockGPT script entry (`MockScriptEntry`) that plays one conformance reply. */
function entryOf(reply: ConformanceReply, at: number): Record<string, unknown> {
  const label = `conformance reply ${at} (${reply.type})`
  switch (reply.type) {
    case 'text':
      return {
        label,
        reply: {
          type: 'text',
          text: reply.text,
          ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning }),
          ...(reply.finishReason === undefined ? {} : { finishReason: reply.finishReason }),
        },
      }
    case 'tool-calls':
      return {
        label,
        reply: {
          type: 'tool-calls',
          calls: reply.calls.map((call) => ({ name: call.name, arguments: call.arguments })),
        },
      }
    case 'json':
      return { label, reply: { type: 'json', value: reply.value } }
    case 'tool-results':
      return {
        label,
        reply: (request: ToolResultsView) => ({ type: 'text', text: toolResultsText(request.toolResults) }),
      }
    case 'error':
      return {
        label,
        reply: {
          type: 'error',
          status: reply.status,
          ...(reply.message === undefined ? {} : { message: reply.message }),
          ...(reply.retryAfterMs === undefined ? {} : { retryAfterMs: reply.retryAfterMs }),
          ...(reply.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: reply.retryAfterSeconds }),
        },
      }
    case 'hang':
      return reply.text === undefined
        ? { label, faults: [{ type: 'hang', afterChunks: 0 }] }
        : { label, reply: { type: 'text', text: reply.text }, faults: [{ type: 'hang', afterChunks: 3 }] }
    case 'disconnect':
      return {
        label,
        reply: { type: 'text', text: reply.text },
        faults: [{ type: 'disconnect', afterChunks: 3 }],
      }
    default:
      refuseField(
        'input',
        `replies[${at}]`,
        `must be a conformance reply (text, tool-calls, json, tool-results, error, hang, disconnect), but got ${describeValue(reply)}`,
        reply,
        { prefix: 'scriptMockGPT: ' },
      )
  }
}

/**
 * Scripts MockGPT to play conformance replies, one script entry per reply in order (each answers one
 * request on any model endpoint: chat completions, Responses, Anthropic Messages). Use it in the `open`
 * of a {@link ChatModelConformanceOptions} for a model wired to a MockGPT server; reset the mock first.
 * @throws `InvalidInputError` for a value that is no {@link ConformanceReply}
 * @example
 * ```ts
 * import { startMockGPTServer } from '@agent-core/mock/node'
 * import { scriptMockGPT } from '@agent-core/kits/models/testing'
 *
 * const server = await startMockGPTServer()
 * scriptMockGPT(server.mock, [{ type: 'text', text: 'Hello!' }])
 * await server.close()
 * ```
 */
export function scriptMockGPT(target: MockGPTScriptTarget, replies: readonly ConformanceReply[]): void {
  if (typeof (target as { script?: unknown } | null)?.script !== 'function') {
    refuseField(
      'input',
      'target',
      `must be MockGPT (server.mock, or a createMockGPT() engine), but got ${describeValue(target)}`,
      target,
      { prefix: 'scriptMockGPT: ' },
    )
  }
  if (!Array.isArray(replies)) {
    refuseField(
      'input',
      'replies',
      `must be an array of conformance replies, but got ${describeValue(replies)}`,
      replies,
      { prefix: 'scriptMockGPT: ' },
    )
  }
  const entries = replies.map((reply, at) => entryOf(reply, at))
  ;(target.script as (...entries: unknown[]) => unknown).call(target, ...entries)
}
