import {
  assertBoolean,
  assertNotThenable,
  assertSafeInteger,
  describeValue,
  isRecord,
  refuseField,
} from '@agent-core/core'
import type { MockChaos, MockEndpoint, MockFault, MockReply, MockScriptEntry } from '../script.js'
import { controllerSteps } from '../stream-controller.js'
import { nearest } from './nearest.js'

export const ENDPOINTS: readonly MockEndpoint[] = [
  'chat.completions',
  'responses',
  'messages',
  'embeddings',
  'models',
]
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
const ENTRY_KEYS = ['reply', 'sequence', 'match', 'times', 'faults', 'label']
const MATCH_KEYS = [
  'endpoint',
  'model',
  'lastUserMessageIncludes',
  'lastUserMessageMatches',
  'stream',
  'hasTools',
  'toolOffered',
  'toolCalled',
  'turn',
]
const REPLY_KEYS: Readonly<Record<string, readonly string[]>> = {
  text: ['type', 'text', 'chunks', 'finishReason', 'reasoning'],
  'tool-calls': ['type', 'calls', 'text', 'reasoning'],
  json: ['type', 'value', 'reasoning'],
  error: [
    'type',
    'status',
    'message',
    'errorType',
    'code',
    'retryAfterMs',
    'retryAfterSeconds',
    'shouldRetry',
  ],
  'raw-chunks': ['type', 'chunks'],
  'controlled-stream': ['type', 'controller'],
}
const FAULT_KEYS: Readonly<Record<string, readonly string[]>> = {
  status: ['type', 'status', 'message', 'retryAfterMs', 'retryAfterSeconds', 'shouldRetry'],
  'slow-first-byte': ['type', 'delayMs'],
  'slow-chunks': ['type', 'delayMs'],
  disconnect: ['type', 'afterChunks'],
  'malformed-chunk': ['type', 'afterChunks'],
  hang: ['type', 'afterChunks'],
  'duplicate-finish': ['type'],
}
const CALL_KEYS = ['name', 'arguments', 'id']
const CHAOS_KEYS = ['rate', 'faults', 'unrecoverable']

/** Refuses keys outside `known`, naming the path and the nearest known key (a typo must not pass silently). */
export function assertKnownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  where: string,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const close = nearest(key, known)
    refuseField(
      'input',
      `${where}.${key}`,
      `is not a known key${close ? `; did you mean "${close}"?` : ''} Known keys: ${known.join(', ')}`,
      value[key],
    )
  }
}

function checkInt(value: unknown, where: string, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (value !== undefined) assertSafeInteger(value, where, { min, max })
}

function checkString(value: unknown, where: string, nonEmpty = false): void {
  if (value !== undefined && (typeof value !== 'string' || (nonEmpty && value === ''))) {
    refuseField(
      'input',
      where,
      `must be a ${nonEmpty ? 'non-empty ' : ''}string, but got ${describeValue(value)}`,
      value,
    )
  }
}

function checkRetry(record: Record<string, unknown>, where: string): void {
  checkInt(record.retryAfterMs, `${where}.retryAfterMs`, 0, 3_600_000)
  checkInt(record.retryAfterSeconds, `${where}.retryAfterSeconds`, 0, 86_400)
  if (record.shouldRetry !== undefined && typeof record.shouldRetry !== 'boolean') {
    refuseField(
      'input',
      `${where}.shouldRetry`,
      `must be a boolean, but got ${describeValue(record.shouldRetry)}`,
      record.shouldRetry,
    )
  }
  checkString(record.message, `${where}.message`)
}

/** Checks one fault; throws InvalidInputError naming the field and the fix. */
export function assertFault(value: unknown, where: string): asserts value is MockFault {
  if (!isRecord(value) || typeof value.type !== 'string' || !FAULT_TYPES.includes(value.type)) {
    const type = isRecord(value) ? value.type : value
    const close = typeof type === 'string' ? nearest(type, FAULT_TYPES) : undefined
    refuseField(
      'input',
      isRecord(value) ? `${where}.type` : where,
      `must be a fault whose type is one of ${FAULT_TYPES.join(', ')}, but got ${describeValue(type)}${close ? ` (did you mean "${close}"?)` : ''}`,
      value,
    )
  }
  assertKnownKeys(value, FAULT_KEYS[value.type] as readonly string[], where)
  switch (value.type) {
    case 'status':
      assertSafeInteger(value.status, `${where}.status`, { min: 400, max: 599 })
      checkRetry(value, where)
      break
    case 'slow-first-byte':
    case 'slow-chunks':
      assertSafeInteger(value.delayMs, `${where}.delayMs`, { min: 0, max: 600_000 })
      break
    case 'disconnect':
    case 'malformed-chunk':
    case 'hang':
      checkInt(value.afterChunks, `${where}.afterChunks`, 0)
      break
  }
}

/** Checks one reply object (not a computed one); throws InvalidInputError naming the field and the fix. */
export function assertReply(value: unknown, where: string): asserts value is MockReply {
  if (!isRecord(value) || typeof value.type !== 'string' || !REPLY_TYPES.includes(value.type)) {
    const type = isRecord(value) ? value.type : value
    const close = typeof type === 'string' ? nearest(type, REPLY_TYPES) : undefined
    refuseField(
      'input',
      isRecord(value) ? `${where}.type` : where,
      `must be a reply whose type is one of ${REPLY_TYPES.join(', ')}, but got ${describeValue(type)}${close ? ` (did you mean "${close}"?)` : ''}`,
      value,
    )
  }
  assertKnownKeys(value, REPLY_KEYS[value.type] as readonly string[], where)
  if (value.type === 'text' || value.type === 'tool-calls' || value.type === 'json')
    checkString(value.reasoning, `${where}.reasoning`)
  switch (value.type) {
    case 'text': {
      if (typeof value.text !== 'string')
        refuseField(
          'input',
          `${where}.text`,
          `must be a string, but got ${describeValue(value.text)}`,
          value.text,
        )
      if (value.chunks !== undefined) {
        if (!Array.isArray(value.chunks) || value.chunks.some((c) => typeof c !== 'string')) {
          refuseField('input', `${where}.chunks`, 'must be an array of strings', value.chunks)
        }
        if (value.chunks.join('') !== value.text)
          refuseField(
            'input',
            `${where}.chunks`,
            'must join to exactly `text`; fix one or the other',
            value.chunks,
          )
      }
      if (
        value.finishReason !== undefined &&
        value.finishReason !== 'stop' &&
        value.finishReason !== 'length'
      ) {
        refuseField(
          'input',
          `${where}.finishReason`,
          `must be "stop" or "length", but got ${describeValue(value.finishReason)}`,
          value.finishReason,
        )
      }
      break
    }
    case 'tool-calls': {
      if (!Array.isArray(value.calls) || value.calls.length === 0) {
        refuseField(
          'input',
          `${where}.calls`,
          'must be a non-empty array of { name, arguments? } objects',
          value.calls,
        )
      }
      value.calls.forEach((call: unknown, i: number) => {
        const at = `${where}.calls[${i}]`
        if (!isRecord(call))
          refuseField('input', at, `must be an object, but got ${describeValue(call)}`, call)
        assertKnownKeys(call, CALL_KEYS, at)
        if (typeof call.name !== 'string' || call.name === '')
          refuseField(
            'input',
            `${at}.name`,
            `must be a non-empty string, but got ${describeValue(call.name)}`,
            call.name,
          )
        if (call.arguments !== undefined && typeof call.arguments !== 'string' && !isRecord(call.arguments)) {
          refuseField(
            'input',
            `${at}.arguments`,
            `must be an object, a JSON string or omitted, but got ${describeValue(call.arguments)}`,
            call.arguments,
          )
        }
        checkString(call.id, `${at}.id`, true)
      })
      checkString(value.text, `${where}.text`)
      break
    }
    case 'json':
      break
    case 'error':
      assertSafeInteger(value.status, `${where}.status`, { min: 400, max: 599 })
      checkRetry(value, where)
      checkString(value.errorType, `${where}.errorType`)
      if (value.code !== undefined && value.code !== null) checkString(value.code, `${where}.code`)
      break
    case 'raw-chunks':
      if (!Array.isArray(value.chunks) || value.chunks.some((c) => typeof c !== 'string' && !isRecord(c))) {
        refuseField(
          'input',
          `${where}.chunks`,
          'must be an array of strings (written verbatim) or objects (sent as `data: <json>`)',
          value.chunks,
        )
      }
      break
    case 'controlled-stream':
      if (!isRecord(value.controller) || !controllerSteps(value.controller as never)) {
        refuseField(
          'input',
          `${where}.controller`,
          'must come from createStreamController()',
          value.controller,
        )
      }
      break
  }
}

function endpointsOf(match: Record<string, unknown>): unknown[] {
  return match.endpoint === undefined ? [] : Array.isArray(match.endpoint) ? match.endpoint : [match.endpoint]
}

function assertMatch(match: Record<string, unknown>, where: string): void {
  assertKnownKeys(match, MATCH_KEYS, where)
  for (const e of endpointsOf(match)) {
    if (!ENDPOINTS.includes(e as MockEndpoint)) {
      const close = typeof e === 'string' ? nearest(e, ENDPOINTS) : undefined
      refuseField(
        'input',
        `${where}.endpoint`,
        `must name endpoints among ${ENDPOINTS.join(', ')}, but got ${describeValue(e)}${close ? ` (did you mean "${close}"?)` : ''}`,
        e,
      )
    }
  }
  const model = match.model
  if (
    model !== undefined &&
    typeof model !== 'string' &&
    !(Array.isArray(model) && model.length > 0 && model.every((m) => typeof m === 'string'))
  ) {
    refuseField('input', `${where}.model`, 'must be a string or a non-empty array of strings', model)
  }
  for (const key of ['lastUserMessageIncludes', 'toolOffered', 'toolCalled'] as const)
    checkString(match[key], `${where}.${key}`)
  const pattern = match.lastUserMessageMatches
  if (pattern !== undefined && !(pattern instanceof RegExp)) {
    if (typeof pattern !== 'string')
      refuseField(
        'input',
        `${where}.lastUserMessageMatches`,
        'must be a RegExp or a regular expression source string',
        pattern,
      )
    try {
      new RegExp(pattern, 'u')
    } catch (error) {
      refuseField(
        'input',
        `${where}.lastUserMessageMatches`,
        `is not a valid regular expression: ${(error as Error).message}`,
        pattern,
      )
    }
  }
  for (const key of ['stream', 'hasTools'] as const) {
    if (match[key] !== undefined && typeof match[key] !== 'boolean')
      refuseField(
        'input',
        `${where}.${key}`,
        `must be a boolean, but got ${describeValue(match[key])}`,
        match[key],
      )
  }
  checkInt(match.turn, `${where}.turn`, 0)
}

function assertReplyOrComputed(value: unknown, where: string): void {
  if (typeof value === 'function') return
  assertReply(value, where)
}

/** Checks one script entry (reply or sequence, match, times, faults, label); unknown keys are refused. */
export function assertScriptEntry(value: unknown, where: string): asserts value is MockScriptEntry {
  if (!isRecord(value))
    refuseField(
      'input',
      where,
      `must be a script entry object { reply?, sequence?, match?, times?, faults?, label? }, but got ${describeValue(value)}`,
      value,
    )
  assertKnownKeys(value, ENTRY_KEYS, where)
  if (value.reply === undefined && value.faults === undefined && value.sequence === undefined) {
    refuseField(
      'input',
      where,
      'needs a `reply`, a `sequence`, `faults`, or a mix; an empty entry would answer like no entry at all',
      value,
    )
  }
  if (value.reply !== undefined && value.sequence !== undefined)
    refuseField(
      'input',
      where,
      'has both `reply` and `sequence`; keep one (a sequence answers turn 0, 1, 2, ... in order)',
      value,
    )
  if (value.reply !== undefined) assertReplyOrComputed(value.reply, `${where}.reply`)
  if (value.sequence !== undefined) {
    if (!Array.isArray(value.sequence) || value.sequence.length === 0)
      refuseField(
        'input',
        `${where}.sequence`,
        'must be a non-empty array of replies (turn 0 first)',
        value.sequence,
      )
    for (const [i, step] of (value.sequence as unknown[]).entries())
      assertReplyOrComputed(step, `${where}.sequence[${i}]`)
  }
  if (value.faults !== undefined) {
    if (!Array.isArray(value.faults))
      refuseField('input', `${where}.faults`, 'must be an array of faults', value.faults)
    for (const [i, f] of (value.faults as unknown[]).entries()) assertFault(f, `${where}.faults[${i}]`)
  }
  if (value.times !== undefined && value.times !== Number.POSITIVE_INFINITY)
    assertSafeInteger(value.times, `${where}.times`, { min: 1 })
  checkString(value.label, `${where}.label`, true)
  const match = value.match
  if (match !== undefined && typeof match !== 'function') {
    if (!isRecord(match) || match instanceof RegExp)
      refuseField('input', `${where}.match`, 'must be a predicate function or a match object', match)
    assertMatch(match, `${where}.match`)
  }
  const replies = [value.reply, ...(Array.isArray(value.sequence) ? value.sequence : [])] as (
    | MockReply
    | undefined
  )[]
  const modelReply = replies.find(
    (r) =>
      r && typeof r !== 'function' && (r.type === 'text' || r.type === 'tool-calls' || r.type === 'json'),
  )
  if (modelReply && isRecord(match)) {
    const wrong = endpointsOf(match).find((e) => e === 'embeddings' || e === 'models')
    if (wrong)
      refuseField(
        'input',
        `${where}.match.endpoint`,
        `includes "${wrong}", which a "${modelReply.type}" reply cannot answer; use an "error" reply or faults there`,
        match.endpoint,
      )
  }
}

/** Checks a whole script (an array of entries). */
export function assertScript(value: unknown, where = 'script'): asserts value is readonly MockScriptEntry[] {
  if (!Array.isArray(value))
    refuseField('input', where, `must be an array of script entries, but got ${describeValue(value)}`, value)
  for (const [i, entry] of value.entries()) assertScriptEntry(entry, `${where}[${i}]`)
}

/** Checks chaos settings. */
export function assertChaos(value: unknown, where = 'chaos'): asserts value is MockChaos {
  if (!isRecord(value))
    refuseField(
      'input',
      where,
      `must be an object { rate, faults?, unrecoverable? }, but got ${describeValue(value)}`,
      value,
    )
  assertKnownKeys(value, CHAOS_KEYS, where)
  if (typeof value.rate !== 'number' || !(value.rate >= 0 && value.rate <= 1)) {
    refuseField(
      'input',
      `${where}.rate`,
      `must be a number from 0 to 1, but got ${describeValue(value.rate)}`,
      value.rate,
    )
  }
  if (value.faults !== undefined) {
    if (!Array.isArray(value.faults) || value.faults.length === 0)
      refuseField('input', `${where}.faults`, 'must be a non-empty array of faults', value.faults)
    for (const [i, f] of (value.faults as unknown[]).entries()) assertFault(f, `${where}.faults[${i}]`)
  }
  if (value.unrecoverable !== undefined && typeof value.unrecoverable !== 'boolean')
    refuseField('input', `${where}.unrecoverable`, 'must be a boolean', value.unrecoverable)
}

/** Runs a script predicate, insisting on a synchronous boolean. */
export function runPredicate(
  predicate: (request: never) => unknown,
  request: unknown,
  where: string,
): boolean {
  return assertBoolean(predicate(request as never), where)
}

/** Runs a computed reply, insisting on a synchronous, well-formed {@link MockReply}. */
export function runComputedReply(
  compute: (request: never) => unknown,
  request: unknown,
  where: string,
): MockReply {
  const reply = assertNotThenable(compute(request as never), where)
  assertReply(reply, `${where} result`)
  return reply
}
