/** Checks of the request objects of publish, retract and load. */
import { assertNonEmptyString, describeValue, refuseField } from '@agent-core/core'
import type { KnowledgeProgressListener } from '../knowledge-definition.js'

/** A request must be a plain object; `example` shows what to pass. */
export function checkRequest(value: unknown, method: string, example: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuseField('input', 'request', `must be a request ${example}, but got ${describeValue(value)}`, value, {
      prefix: `${method}: `,
    })
  }
  return value as Record<string, unknown>
}

/** `onProgress` is a function or left out. */
export function checkListener(value: unknown, field: string): KnowledgeProgressListener | undefined {
  if (value !== undefined && typeof value !== 'function') {
    refuseField('input', field, `must be a function or left out, but got ${describeValue(value)}`, value)
  }
  return value as KnowledgeProgressListener | undefined
}

/** The ids of a retraction: a dense array of distinct non-empty strings. */
export function checkIds(value: unknown): string[] {
  if (!Array.isArray(value)) {
    refuseField(
      'input',
      'request.ids',
      `must be an array of document ids, but got ${describeValue(value)}`,
      value,
      { prefix: 'retract: ' },
    )
  }
  const seen = new Map<string, number>()
  const ids: string[] = []
  for (let i = 0; i < value.length; i++) {
    const id: unknown = i in value ? value[i] : undefined
    assertNonEmptyString(id, `request.ids[${i}]`, {
      where: 'retract',
      hint: 'Pass the ids the documents were published under.',
    })
    const earlier = seen.get(id)
    if (earlier !== undefined) {
      refuseField(
        'input',
        `request.ids[${i}]`,
        `repeats "${id}" of request.ids[${earlier}]. Name each document once`,
        id,
        { prefix: 'retract: ' },
      )
    }
    seen.set(id, i)
    ids.push(id)
  }
  return ids
}
