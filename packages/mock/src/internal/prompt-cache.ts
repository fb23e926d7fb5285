/**
 * Anthropic prompt caching, simulated: a request's prompt is read as the API reads it (tools, then the
 * system blocks, then each message's content blocks), each block boundary gets a key chained from the
 * blocks before it, and `cache_control` marks the breakpoints. At most four breakpoints are accepted, as the
 * API allows. Each request reads the longest prefix an earlier request of the same scope and model wrote,
 * looking back up to 20 blocks from each breakpoint (as the API does), and writes the prefix up to its last
 * breakpoint. No minimum length and no expiry: tests see caching on short prompts, deterministically.
 */
import { describeValue, isRecord } from '@agent-core/core'
import { countTokens } from '../tokenizer.js'
import { hashString } from './hash.js'
import { badRequest } from './openai-error.js'

/** The block boundaries of a request with at least one breakpoint. */
export interface PromptCachePlan {
  /** Chained key of the prompt up to and including each block (model included). */
  readonly keys: readonly string[]
  /** Input tokens up to and including each block. */
  readonly tokens: readonly number[]
  /** Indexes (into `keys`) of the blocks that carry `cache_control`. */
  readonly breakpoints: readonly number[]
}

/** The cache part of one answer's usage. */
export interface PromptCacheUsage {
  readonly read: number
  readonly write: number
}

/** The API's limit on blocks with `cache_control` in one request. */
export const MAX_BREAKPOINTS = 4
/** How many block boundaries before a breakpoint the API checks for an earlier write. */
const LOOKBACK = 20
/** Keys one scope keeps before it forgets the oldest. */
const MAX_KEYS = 10_000

function checkMarker(value: unknown, param: string): void {
  if (!isRecord(value) || value.type !== 'ephemeral') {
    throw badRequest(
      `${param}.type: Input should be 'ephemeral', but got ${describeValue(isRecord(value) ? value.type : value)}.`,
      `${param}.type`,
    )
  }
  const ttl = value.ttl
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h') {
    throw badRequest(
      `${param}.ttl: Input should be '5m' or '1h', but got ${describeValue(ttl)}.`,
      `${param}.ttl`,
    )
  }
}

/** The tokens a block adds to the prompt, in the units of the request's `inputTokens`. */
function blockTokens(block: Record<string, unknown>): number {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? countTokens(block.text) : 0
    case 'tool_use':
      return countTokens(`${String(block.name)}(${JSON.stringify(block.input ?? {})})`)
    case 'tool_result': {
      const content = block.content
      if (typeof content === 'string') return countTokens(content)
      if (!Array.isArray(content)) return 0
      let sum = 0
      for (const part of content) if (isRecord(part)) sum += blockTokens(part)
      return sum
    }
    // Thinking of earlier turns is not counted as input, as the API strips it.
    case 'thinking':
    case 'redacted_thinking':
      return 0
    default:
      return countTokens(JSON.stringify(block))
  }
}

/** The body of a block without its marker, so moving a breakpoint does not change the prefix. */
function blockText(block: Record<string, unknown>): string {
  if (block.cache_control === undefined) return JSON.stringify(block)
  const { cache_control: _marker, ...rest } = block
  return JSON.stringify(rest)
}

function hasMarker(body: Record<string, unknown>): boolean {
  // A cheap test first: only a body that mentions the field pays for the walk.
  const { tools, system, messages } = body
  const anyMarked = (list: unknown): boolean =>
    Array.isArray(list) && list.some((item) => isRecord(item) && item.cache_control !== undefined)
  if (anyMarked(tools) || anyMarked(system)) return true
  if (!Array.isArray(messages)) return false
  return messages.some((m) => isRecord(m) && anyMarked(m.content))
}

/**
 * The cache plan of a Messages body, or `undefined` when no block carries `cache_control` (the common case
 * costs one scan). Refuses a fifth breakpoint and a malformed marker with the API's 400.
 */
export function planPromptCache(body: Record<string, unknown>, model: string): PromptCachePlan | undefined {
  if (!hasMarker(body)) return undefined
  const keys: string[] = []
  const tokens: number[] = []
  const breakpoints: number[] = []
  let low = hashString(model, 1)
  let high = hashString(model, 2)
  let total = 3
  const add = (block: Record<string, unknown>, param: string, extra: number) => {
    const text = blockText(block)
    low = hashString(`${low}\u0001${text}`, 1)
    high = hashString(`${high}\u0001${text}`, 2)
    total += extra + blockTokens(block)
    keys.push(`${low.toString(36)}.${high.toString(36)}`)
    tokens.push(total)
    if (block.cache_control !== undefined) {
      checkMarker(block.cache_control, `${param}.cache_control`)
      breakpoints.push(keys.length - 1)
    }
  }
  const { tools, system, messages } = body
  if (Array.isArray(tools)) {
    tools.forEach((tool, i) => {
      if (isRecord(tool)) add(tool, `tools.${i}`, 0)
    })
  }
  if (Array.isArray(system)) {
    system.forEach((block, i) => {
      if (isRecord(block)) add(block, `system.${i}`, i === 0 ? 3 : 0)
    })
  } else if (typeof system === 'string' && system !== '') {
    add({ type: 'text', text: system }, 'system', 3)
  }
  if (Array.isArray(messages)) {
    messages.forEach((message, i) => {
      if (!isRecord(message)) return
      const content = message.content
      if (typeof content === 'string')
        add({ type: 'text', text: content, role: message.role }, `messages.${i}`, 3)
      else if (Array.isArray(content)) {
        content.forEach((block, j) => {
          if (isRecord(block))
            add({ ...block, role: message.role }, `messages.${i}.content.${j}`, j === 0 ? 3 : 0)
        })
      }
    })
  }
  if (breakpoints.length > MAX_BREAKPOINTS) {
    throw badRequest(
      `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
    )
  }
  return { keys, tokens, breakpoints }
}

/** The prompt prefixes one scope's requests wrote, as the API's cache would hold them. */
export class PromptCache {
  readonly #keys = new Set<string>()

  /** What the request reads and writes; remembers its breakpoints for later requests. */
  use(plan: PromptCachePlan, inputTokens: number): PromptCacheUsage {
    const { keys, tokens, breakpoints } = plan
    let read = 0
    for (const breakpoint of breakpoints) {
      for (let i = breakpoint; i >= 0 && i > breakpoint - LOOKBACK; i--) {
        if (this.#keys.has(keys[i] as string)) {
          read = Math.max(read, tokens[i] as number)
          break
        }
      }
    }
    const last = breakpoints[breakpoints.length - 1] as number
    const written = Math.max(0, (tokens[last] as number) - read)
    for (const breakpoint of breakpoints) this.#remember(keys[breakpoint] as string)
    // The plan counts blocks as the prompt's own tokens do; never report more cached input than input.
    const cappedRead = Math.min(read, inputTokens)
    return { read: cappedRead, write: Math.min(written, inputTokens - cappedRead) }
  }

  #remember(key: string): void {
    const keys = this.#keys
    keys.delete(key)
    if (keys.size >= MAX_KEYS) keys.delete(keys.values().next().value as string)
    keys.add(key)
  }
}
