import {
  assertObject,
  assertSafeInteger,
  BudgetExhaustedError,
  describeValue,
  InvalidDefinitionError,
  isThenable,
  refuseField,
} from '@agent-core/core'
import { assertStringOutput, callSync, definitionId, definitionMethod } from './checks.js'

/**
 * What a fallback function learns about the value that did not fit.
 * @example
 * ```ts
 * import { type ContentOverflow, defineContentProjection } from '@agent-core/kits/projection'
 * const fallback = ({ length, maxChars }: ContentOverflow<string>) => `[${length} chars, ${maxChars} allowed]`
 * const note = defineContentProjection<string>({ id: 'note', render: (s) => s, overflow: 'fallback', fallback })
 * ```
 */
export interface ContentOverflow<Value> {
  /** The value passed to `project`. */
  readonly value: Value
  /** Length of the full rendered text in UTF-16 code units. */
  readonly length: number
  /** The request's budget. */
  readonly maxChars: number
}

/**
 * How to turn one kind of value into text for a bounded place such as a prompt.
 * @example
 * ```ts
 * import { type ContentProjectionDefinition, defineContentProjection } from '@agent-core/kits/projection'
 * const definition: ContentProjectionDefinition<object> = {
 *   id: 'json',
 *   render: (value) => JSON.stringify(value, null, 2),
 *   marker: '…',
 *   minPrefixChars: 20,
 *   fallback: ({ length }) => `[${length} characters omitted]`,
 * }
 * const json = defineContentProjection(definition)
 * ```
 */
export interface ContentProjectionDefinition<Value> {
  /** Names the projection in error messages. */
  readonly id: string
  /** Renders the whole value as text. Synchronous; must return a string (nothing is coerced). */
  render(value: Value): string
  /**
   * What happens when the rendered text is longer than `maxChars`: `'truncate'` (default) keeps the
   * longest prefix that fits, `'fallback'` replaces it with {@link ContentProjectionDefinition.fallback}.
   */
  readonly overflow?: 'truncate' | 'fallback'
  /** Appended to a kept prefix and counted against `maxChars`, e.g. `'…'`. Default `''`. */
  readonly marker?: string
  /**
   * A prefix shorter than this many code units is not worth showing: the fallback is used instead.
   * Default 1.
   */
  readonly minPrefixChars?: number
  /**
   * The text used when the rendered text does not fit and no prefix is kept. A string, or a synchronous
   * function of the overflow. It must fit `maxChars` itself; otherwise the call is rejected.
   */
  readonly fallback?: string | ((overflow: ContentOverflow<Value>) => string)
}

/**
 * A named request: the value and its budget.
 * @example
 * ```ts
 * import { type ContentProjectionRequest, defineContentProjection } from '@agent-core/kits/projection'
 * const note = defineContentProjection<string>({ id: 'note', render: (s) => s })
 * const request: ContentProjectionRequest<string> = { value: 'a long note', maxChars: 6 }
 * note.project(request) // { text: 'a long', truncated: true }
 * ```
 */
export interface ContentProjectionRequest<Value> {
  readonly value: Value
  /** The most UTF-16 code units the text may have; a non-negative safe integer. */
  readonly maxChars: number
}

/**
 * The projected text; `truncated` is true whenever it is not the whole rendered text.
 * @example
 * ```ts
 * import { type ContentProjectionResult, defineContentProjection } from '@agent-core/kits/projection'
 * const note = defineContentProjection<string>({ id: 'note', render: (s) => s, marker: '…' })
 * const result: ContentProjectionResult = note.project({ value: 'hello world', maxChars: 6 })
 * if (result.truncated) console.log('shortened to', result.text) // 'hello…'
 * ```
 */
export interface ContentProjectionResult {
  readonly text: string
  readonly truncated: boolean
}

/**
 * A compiled content projection, built by {@link defineContentProjection}.
 * @example
 * ```ts
 * import { type ContentProjection, defineContentProjection } from '@agent-core/kits/projection'
 * const note: ContentProjection<string> = defineContentProjection<string>({ id: 'note', render: (s) => s })
 * note.project({ value: 'short', maxChars: 100 }) // { text: 'short', truncated: false }
 * ```
 */
export interface ContentProjection<Value> {
  readonly id: string
  /**
   * Renders `value` and fits it into `maxChars`: the whole text when it fits, else a prefix (plus the
   * marker) or the fallback. Never pads or invents text.
   * @throws InvalidInputError for a malformed request, RejectedThenableError when a hook returns a Promise,
   * InvalidOutputError when a hook returns a non-string, BudgetExhaustedError when neither a prefix nor the
   * fallback fits.
   */
  project(request: ContentProjectionRequest<Value>): ContentProjectionResult
}

/** The longest prefix of `text` of at most `limit` code units that does not end inside a surrogate pair. */
function safePrefix(text: string, limit: number): string {
  if (limit <= 0) return ''
  const code = text.charCodeAt(limit - 1)
  const next = text.charCodeAt(limit)
  const splitsPair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
  return text.slice(0, splitsPair ? limit - 1 : limit)
}

/**
 * Defines how a value becomes text within a character budget.
 *
 * The rendered text is returned whole when it fits. Otherwise, with `overflow: 'truncate'` (the default),
 * the longest prefix that fits together with `marker` is kept (never cutting a surrogate pair); when that
 * prefix would be shorter than `minPrefixChars`, or with `overflow: 'fallback'`, the fallback text is used.
 * The fallback must fit the budget too: a request whose fallback is too long, or that has no fallback when
 * one is needed, is rejected with BudgetExhaustedError rather than answered with made-up text.
 *
 * Members are read once here (prototype getters work); `render` and a fallback function are called with
 * the definition as `this`.
 *
 * @throws InvalidDefinitionError when the definition is malformed
 * @example
 * ```ts
 * import { defineContentProjection } from '@agent-core/kits/projection'
 *
 * const json = defineContentProjection<unknown>({
 *   id: 'tool-result',
 *   render: (value) => JSON.stringify(value, null, 2),
 *   marker: '…',
 *   fallback: ({ length }) => `[${length} characters omitted]`,
 * })
 * json.project({ value: { ok: true }, maxChars: 100 }) // { text: '{\n  "ok": true\n}', truncated: false }
 * ```
 */
export function defineContentProjection<Value>(
  definition: ContentProjectionDefinition<Value>,
): ContentProjection<Value> {
  const id = definitionId(definition, 'content projection')
  const what = `content projection "${id}"`
  const render = definitionMethod(definition, 'render', what, id, false) as (...args: never[]) => unknown
  const overflow = definition.overflow ?? 'truncate'
  if (overflow !== 'truncate' && overflow !== 'fallback') {
    refuseField(
      'definition',
      'overflow',
      `must be 'truncate' or 'fallback', but got ${describeValue(overflow)}`,
      overflow,
      { prefix: `${what}: `, details: { id } },
    )
  }
  const marker = definition.marker ?? ''
  if (typeof marker !== 'string') {
    refuseField('definition', 'marker', `must be a string, but got ${describeValue(marker)}`, marker, {
      prefix: `${what}: `,
      details: { id },
    })
  }
  const minPrefixChars = definition.minPrefixChars ?? 1
  assertSafeInteger(minPrefixChars, 'minPrefixChars', {
    min: 1,
    where: what,
    error: InvalidDefinitionError,
    details: { id },
    hint: 'Pass the shortest prefix worth showing before the marker, such as 20, or leave it out for 1.',
  })
  const fallback = definition.fallback
  if (fallback !== undefined && typeof fallback !== 'string' && typeof fallback !== 'function') {
    refuseField(
      'definition',
      'fallback',
      `must be a string or a function returning one, but got ${describeValue(fallback)}`,
      fallback,
      { prefix: `${what}: `, details: { id } },
    )
  }
  if (overflow === 'fallback' && fallback === undefined) {
    refuseField(
      'definition',
      'fallback',
      "is needed with overflow 'fallback'. Add one, or use overflow 'truncate'",
      fallback,
      { prefix: `${what}: `, details: { id } },
    )
  }

  function useFallback(value: Value, length: number, maxChars: number): ContentProjectionResult {
    if (fallback === undefined) {
      throw new BudgetExhaustedError(
        `${what}: the rendered text has ${length} characters, more than maxChars ${maxChars}, and no prefix of at least ${minPrefixChars} characters${marker ? ' plus the marker' : ''} fits. Raise maxChars or define a fallback.`,
        { details: { id, length, maxChars, minPrefixChars, markerLength: marker.length } },
      )
    }
    const text =
      typeof fallback === 'string'
        ? fallback
        : assertStringOutput(
            callSync(fallback, definition, [Object.freeze({ value, length, maxChars })], `${what} fallback`),
            `${what} fallback`,
          )
    if (text.length > maxChars) {
      throw new BudgetExhaustedError(
        `${what}: the fallback text has ${text.length} characters, more than maxChars ${maxChars}, so it cannot stand in for the value. Shorten the fallback or raise maxChars.`,
        { details: { id, length, maxChars, fallbackLength: text.length } },
      )
    }
    return Object.freeze({ text, truncated: true })
  }

  return Object.freeze({
    id,
    project(request: ContentProjectionRequest<Value>): ContentProjectionResult {
      assertObject(request as unknown, 'request', {
        where: `${what}: project`,
        details: { id },
        hint: 'Pass { value, maxChars }.',
      })
      const { value, maxChars } = request
      assertSafeInteger(maxChars, 'maxChars', {
        min: 0,
        where: what,
        details: { id },
        hint: 'It counts UTF-16 code units: pass a whole number such as 2000.',
      })
      if (isThenable(value)) {
        refuseField(
          'input',
          'value',
          'is a Promise. Await it and project the result; a pending value has no text',
          value,
          { prefix: `${what}: `, details: { id } },
        )
      }
      const full = assertStringOutput(
        callSync(render, definition, [value], `${what} render`),
        `${what} render`,
      )
      if (full.length <= maxChars) return Object.freeze({ text: full, truncated: false })
      if (overflow === 'truncate') {
        const prefix = safePrefix(full, maxChars - marker.length)
        if (prefix.length >= minPrefixChars) return Object.freeze({ text: prefix + marker, truncated: true })
      }
      return useFallback(value, full.length, maxChars)
    },
  })
}
