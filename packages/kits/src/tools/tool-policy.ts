import { describeValue, InvalidInputError } from '@agent-core/core'

/**
 * Which tools may be offered and called, as one plain-JSON record: `deny` wins over `allow`, and an
 * empty or absent `allow` means every tool that is not denied. Names are tool ids, matched exactly.
 * A tool the policy does not permit is hidden, not refused: the model is never offered it, and a call to
 * it gets the same answer as a call to a name no tool has, so the answer never reveals that it exists.
 * @example
 * ```ts
 * import type { ToolPolicy } from '@agent-core/kits/tools'
 * const readOnly: ToolPolicy = { allow: ['search', 'read_file'] }
 * const noShell: ToolPolicy = { deny: ['shell'] }
 * ```
 */
export interface ToolPolicy {
  /** The tools permitted; empty or absent: all of them (but the denied). */
  readonly allow?: readonly string[] | undefined
  /** The tools never permitted, whatever `allow` says. */
  readonly deny?: readonly string[] | undefined
}

function readNames(value: unknown, field: string): readonly string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) {
    throw new InvalidInputError(`${field} must be an array of tool ids, but got ${describeValue(value)}.`, {
      details: { field, received: describeValue(value) },
    })
  }
  value.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || name === '') {
      throw new InvalidInputError(
        `${field}[${index}] must be a tool id (a non-empty string), but got ${describeValue(name)}.`,
        { details: { field: `${field}[${index}]`, received: describeValue(name), index } },
      )
    }
  })
  return Object.freeze([...(value as string[])])
}

/**
 * Checks a tool policy record and returns a frozen copy.
 * @param field - the name of the value in errors, e.g. `"definition.toolPolicy"`
 * @throws `InvalidInputError` for anything but `{ allow?, deny? }` with arrays of non-empty strings
 * @example
 * ```ts
 * import { assertToolPolicy } from '@agent-core/kits/tools'
 * const policy = assertToolPolicy(JSON.parse('{"deny":["shell"]}'), 'settings.toolPolicy')
 * ```
 */
export function assertToolPolicy(value: unknown, field = 'toolPolicy'): ToolPolicy {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError(
      `${field} must be a tool policy { allow?, deny? }, but got ${describeValue(value)}.`,
      {
        details: { field, received: describeValue(value) },
      },
    )
  }
  const { allow, deny, ...rest } = value as Record<string, unknown>
  const extra = Object.keys(rest)[0]
  if (extra !== undefined) {
    throw new InvalidInputError(`${field}.${extra} is not a field of a tool policy (known: allow, deny).`, {
      details: { field: `${field}.${extra}`, received: describeValue(rest[extra]) },
    })
  }
  const allowed = readNames(allow, `${field}.allow`)
  const denied = readNames(deny, `${field}.deny`)
  return Object.freeze({
    ...(allowed === undefined ? {} : { allow: allowed }),
    ...(denied === undefined ? {} : { deny: denied }),
  })
}

/**
 * True when every given policy permits the tool: no policy denies it, and each policy's `allow` is empty
 * or names it. Policies left `undefined` permit everything, so a registry's policy and a run's combine.
 * @example
 * ```ts
 * import { isToolPermitted } from '@agent-core/kits/tools'
 * isToolPermitted('shell', { deny: ['shell'] }) // false
 * isToolPermitted('search', { allow: ['search'], deny: [] }, { deny: ['shell'] }) // true
 * isToolPermitted('search', { allow: ['search'], deny: ['search'] }) // false: deny wins
 * ```
 */
export function isToolPermitted(toolId: string, ...policies: readonly (ToolPolicy | undefined)[]): boolean {
  for (const policy of policies) {
    if (policy === undefined) continue
    if (policy.deny?.includes(toolId)) return false
    if (policy.allow !== undefined && policy.allow.length > 0 && !policy.allow.includes(toolId)) return false
  }
  return true
}
