import { describeValue, refuseField } from '@agent-core/core'

/** Reads a list of tool ids (`request.tools`, `beforeTurn().tools`): non-empty strings, no repeats. */
export function readToolIds(value: unknown, field: string): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value))
    refuseField('input', field, `must be an array of tool ids, but got ${describeValue(value)}`, value)
  const ids = new Set<string>()
  value.forEach((id: unknown, index) => {
    if (typeof id !== 'string' || id === '' || ids.has(id)) {
      refuseField(
        'input',
        `${field}[${index}]`,
        `must be a tool id (a non-empty string, given once), but got ${describeValue(id)}`,
        id,
      )
    }
    ids.add(id)
  })
  return ids
}

/** Refuses tool ids the agent does not have. */
export function assertKnownTools(
  ids: ReadonlySet<string>,
  known: ReadonlyMap<string, unknown>,
  field: string,
): void {
  for (const id of ids) {
    if (!known.has(id)) {
      refuseField(
        'input',
        field,
        `names tool "${id}", which the agent does not have. Known tools: ${[...known.keys()].map((k) => `"${k}"`).join(', ') || '(none)'}`,
        id,
        { details: { known: [...known.keys()] } },
      )
    }
  }
}
