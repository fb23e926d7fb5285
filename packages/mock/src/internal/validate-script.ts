import { assertBoolean, describeValue, InvalidInputError } from '@agent-core/core'
import type { MockChaos, MockEndpoint, MockFault, MockReply, MockScriptEntry } from '../script.js'
import { controllerSteps } from '../stream-controller.js'

const ENDPOINTS: readonly MockEndpoint[] = ['chat.completions', 'responses', 'embeddings', 'models']
const REPLY_TYPES = ['text', 'tool-calls', 'json', 'error', 'raw-chunks', 'controlled-stream']
const FAULT_TYPES = [
  'status',
  'slow-first-byte',
  'slow-chunks',
  'disconnect',
  'malformed-chunk',
  'hang',
  'duplicate-finish',
]

function fail(where: string, message: string, received?: unknown): never {
  throw new InvalidInputError(`${where} ${message}`, {
    details: { where, ...(received === undefined ? {} : { received: describeValue(received) }) },
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkInt(
  value: unknown,
  where: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  optional = true,
): void {
  if (value === undefined && optional) return
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(where, `must be an integer from ${min} to ${max}, but got ${describeValue(value)}.`, value)
  }
}

function checkStatus(value: unknown, where: string): void {
  checkInt(value, where, 400, 599, false)
}

function checkRetry(record: Record<string, unknown>, where: string): void {
  checkInt(record.retryAfterMs, `${where}.retryAfterMs`, 0, 3_600_000)
  checkInt(record.retryAfterSeconds, `${where}.retryAfterSeconds`, 0, 86_400)
  if (record.shouldRetry !== undefined && typeof record.shouldRetry !== 'boolean') {
    fail(
      `${where}.shouldRetry`,
      `must be a boolean, but got ${describeValue(record.shouldRetry)}.`,
      record.shouldRetry,
    )
  }
  if (record.message !== undefined && typeof record.message !== 'string') {
    fail(`${where}.message`, `must be a string, but got ${describeValue(record.message)}.`, record.message)
  }
}

/** Checks one fault; throws InvalidInputError naming the field and the fix. */
export function assertFault(value: unknown, where: string): asserts value is MockFault {
  if (!isRecord(value) || typeof value.type !== 'string' || !FAULT_TYPES.includes(value.type)) {
    fail(
      where,
      `must be a fault object whose type is one of ${FAULT_TYPES.join(', ')}, but got ${describeValue(isRecord(value) ? value.type : value)}.`,
      value,
    )
  }
  switch (value.type) {
    case 'status':
      checkStatus(value.status, `${where}.status`)
      checkRetry(value, where)
      break
    case 'slow-first-byte':
    case 'slow-chunks':
      checkInt(value.delayMs, `${where}.delayMs`, 0, 600_000, false)
      break
    case 'disconnect':
    case 'malformed-chunk':
    case 'hang':
      checkInt(value.afterChunks, `${where}.afterChunks`, 0)
      break
  }
}

/** Checks one reply; throws InvalidInputError naming the field and the fix. */
export function assertReply(value: unknown, where: string): asserts value is MockReply {
  if (!isRecord(value) || typeof value.type !== 'string' || !REPLY_TYPES.includes(value.type)) {
    fail(
      where,
      `must be a reply object whose type is one of ${REPLY_TYPES.join(', ')}, but got ${describeValue(isRecord(value) ? value.type : value)}.`,
      value,
    )
  }
  switch (value.type) {
    case 'text': {
      if (typeof value.text !== 'string')
        fail(`${where}.text`, `must be a string, but got ${describeValue(value.text)}.`, value.text)
      if (value.chunks !== undefined) {
        if (!Array.isArray(value.chunks) || value.chunks.some((c) => typeof c !== 'string')) {
          fail(`${where}.chunks`, 'must be an array of strings.', value.chunks)
        }
        if (value.chunks.join('') !== value.text)
          fail(`${where}.chunks`, 'must join to exactly `text`; fix one or the other.')
      }
      if (
        value.finishReason !== undefined &&
        value.finishReason !== 'stop' &&
        value.finishReason !== 'length'
      ) {
        fail(
          `${where}.finishReason`,
          `must be "stop" or "length", but got ${describeValue(value.finishReason)}.`,
          value.finishReason,
        )
      }
      break
    }
    case 'tool-calls': {
      if (!Array.isArray(value.calls) || value.calls.length === 0) {
        fail(`${where}.calls`, 'must be a non-empty array of { name, arguments? } objects.', value.calls)
      }
      value.calls.forEach((call: unknown, i: number) => {
        const at = `${where}.calls[${i}]`
        if (!isRecord(call)) fail(at, `must be an object, but got ${describeValue(call)}.`, call)
        if (typeof call.name !== 'string' || call.name === '')
          fail(`${at}.name`, `must be a non-empty string, but got ${describeValue(call.name)}.`, call.name)
        if (call.arguments !== undefined && typeof call.arguments !== 'string' && !isRecord(call.arguments)) {
          fail(
            `${at}.arguments`,
            `must be an object, a JSON string or omitted, but got ${describeValue(call.arguments)}.`,
            call.arguments,
          )
        }
        if (call.id !== undefined && (typeof call.id !== 'string' || call.id === ''))
          fail(`${at}.id`, 'must be a non-empty string.', call.id)
      })
      if (value.text !== undefined && typeof value.text !== 'string')
        fail(`${where}.text`, 'must be a string.', value.text)
      break
    }
    case 'json':
      break
    case 'error':
      checkStatus(value.status, `${where}.status`)
      checkRetry(value, where)
      break
    case 'raw-chunks':
      if (!Array.isArray(value.chunks) || value.chunks.some((c) => typeof c !== 'string' && !isRecord(c))) {
        fail(
          `${where}.chunks`,
          'must be an array of strings (written verbatim) or objects (sent as `data: <json>`).',
          value.chunks,
        )
      }
      break
    case 'controlled-stream':
      if (!isRecord(value.controller) || !controllerSteps(value.controller as never)) {
        fail(`${where}.controller`, 'must come from createStreamController().', value.controller)
      }
      break
  }
}

/** Checks one script entry (reply, match, times, faults). */
export function assertScriptEntry(value: unknown, where: string): asserts value is MockScriptEntry {
  if (!isRecord(value))
    fail(
      where,
      `must be a script entry object { reply?, match?, times?, faults? }, but got ${describeValue(value)}.`,
      value,
    )
  if (value.reply === undefined && value.faults === undefined) {
    fail(where, 'needs a `reply`, `faults`, or both; an empty entry would answer like no entry at all.')
  }
  if (value.reply !== undefined) assertReply(value.reply, `${where}.reply`)
  if (value.faults !== undefined) {
    if (!Array.isArray(value.faults)) fail(`${where}.faults`, 'must be an array of faults.', value.faults)
    for (const [i, f] of (value.faults as unknown[]).entries()) assertFault(f, `${where}.faults[${i}]`)
  }
  if (value.times !== undefined && value.times !== Number.POSITIVE_INFINITY)
    checkInt(value.times, `${where}.times`, 1)
  const match = value.match
  if (match !== undefined && typeof match !== 'function') {
    if (!isRecord(match)) fail(`${where}.match`, 'must be a predicate function or a match object.', match)
    const endpoints =
      match.endpoint === undefined ? [] : Array.isArray(match.endpoint) ? match.endpoint : [match.endpoint]
    for (const e of endpoints) {
      if (!ENDPOINTS.includes(e as MockEndpoint))
        fail(
          `${where}.match.endpoint`,
          `must name endpoints among ${ENDPOINTS.join(', ')}, but got ${describeValue(e)}.`,
          e,
        )
    }
    for (const key of ['model', 'lastUserMessageIncludes'] as const) {
      if (match[key] !== undefined && typeof match[key] !== 'string')
        fail(`${where}.match.${key}`, 'must be a string.', match[key])
    }
    for (const key of ['stream', 'hasTools'] as const) {
      if (match[key] !== undefined && typeof match[key] !== 'boolean')
        fail(`${where}.match.${key}`, 'must be a boolean.', match[key])
    }
    const known = new Set(['endpoint', 'model', 'lastUserMessageIncludes', 'stream', 'hasTools'])
    for (const key of Object.keys(match))
      if (!known.has(key))
        fail(`${where}.match`, `has unknown key "${key}"; known keys are ${[...known].join(', ')}.`)
  }
  const reply = value.reply as MockReply | undefined
  if (
    reply &&
    (reply.type === 'text' || reply.type === 'tool-calls' || reply.type === 'json') &&
    isRecord(match)
  ) {
    const endpoints =
      match.endpoint === undefined ? [] : Array.isArray(match.endpoint) ? match.endpoint : [match.endpoint]
    const wrong = endpoints.find((e) => e === 'embeddings' || e === 'models')
    if (wrong)
      fail(
        `${where}.match.endpoint`,
        `includes "${wrong}", which a "${reply.type}" reply cannot answer; use an "error" reply or faults there.`,
      )
  }
}

/** Checks a whole script (an array of entries). */
export function assertScript(value: unknown, where = 'script'): asserts value is readonly MockScriptEntry[] {
  if (!Array.isArray(value))
    fail(where, `must be an array of script entries, but got ${describeValue(value)}.`, value)
  for (const [i, entry] of value.entries()) assertScriptEntry(entry, `${where}[${i}]`)
}

/** Checks chaos settings. */
export function assertChaos(value: unknown, where = 'chaos'): asserts value is MockChaos {
  if (!isRecord(value))
    fail(where, `must be an object { rate, faults? }, but got ${describeValue(value)}.`, value)
  if (typeof value.rate !== 'number' || !(value.rate >= 0 && value.rate <= 1)) {
    fail(`${where}.rate`, `must be a number from 0 to 1, but got ${describeValue(value.rate)}.`, value.rate)
  }
  if (value.faults !== undefined) {
    if (!Array.isArray(value.faults) || value.faults.length === 0)
      fail(`${where}.faults`, 'must be a non-empty array of faults.', value.faults)
    for (const [i, f] of (value.faults as unknown[]).entries()) assertFault(f, `${where}.faults[${i}]`)
  }
}

/** Runs a script predicate, insisting on a synchronous boolean. */
export function runPredicate(
  predicate: (request: never) => unknown,
  request: unknown,
  where: string,
): boolean {
  return assertBoolean(predicate(request as never), where)
}
