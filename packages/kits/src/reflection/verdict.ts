import { describeValue, type JsonSchema, refuseField } from '@agent-core/core'
import { defineStructuredOutput, type StandardSchemaV1, type StructuredOutput } from '@agent-core/kits/models'

/**
 * A critic's verdict on a draft: `accept` it, or `revise` it with the list of issues to fix (at least one).
 * An accepting critic may still leave minor notes in `issues`.
 * @example
 * ```ts
 * import type { ReflectionVerdict } from '@agent-core/kits/reflection'
 * const verdict: ReflectionVerdict = { decision: 'revise', issues: ['The second step skips the unit conversion.'] }
 * ```
 */
export interface ReflectionVerdict {
  readonly decision: 'accept' | 'revise'
  readonly issues: readonly string[]
}

function deepFreeze<T extends object>(value: T): T {
  for (const nested of Object.values(value)) {
    if (typeof nested === 'object' && nested !== null) deepFreeze(nested)
  }
  return Object.freeze(value)
}

/**
 * The JSON Schema of a verdict as the critic reads it (and as a provider's strict JSON mode accepts it:
 * an object root, every property required, no others). A verdict is also checked for what this schema
 * cannot say portably: a `revise` verdict lists at least one issue, and no issue is blank.
 * @example
 * ```ts
 * import { REFLECTION_VERDICT_SCHEMA } from '@agent-core/kits/reflection'
 * const { required } = REFLECTION_VERDICT_SCHEMA as { required: string[] } // ['decision', 'issues']
 * ```
 */
export const REFLECTION_VERDICT_SCHEMA: JsonSchema = deepFreeze({
  type: 'object',
  additionalProperties: false,
  required: ['decision', 'issues'],
  properties: {
    decision: {
      type: 'string',
      enum: ['accept', 'revise'],
      description: 'accept when the draft fully does what the task asks; revise otherwise',
    },
    issues: {
      type: 'array',
      items: { type: 'string' },
      description:
        'each problem as one concrete, actionable sentence; at least one to revise, empty (or minor notes) to accept',
    },
  },
})

type Issue = StandardSchemaV1.Issue

/** Reads a verdict: the decision, and the issues (missing issues on an accept read as none; extra fields are ignored). */
function validate(value: unknown): StandardSchemaV1.Result<ReflectionVerdict> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { issues: [{ message: 'must be an object { "decision": "accept" | "revise", "issues": [...] }' }] }
  }
  const { decision, issues } = value as { decision?: unknown; issues?: unknown }
  const problems: Issue[] = []
  if (decision !== 'accept' && decision !== 'revise') {
    problems.push({ path: ['decision'], message: 'must be "accept" or "revise"' })
  }
  let list: string[] = []
  if (issues === undefined) {
    if (decision !== 'accept') problems.push({ path: ['issues'], message: 'is required: list what to fix' })
  } else if (!Array.isArray(issues)) {
    problems.push({ path: ['issues'], message: 'must be an array of strings' })
  } else {
    issues.forEach((issue: unknown, index) => {
      if (typeof issue !== 'string' || issue.trim() === '') {
        problems.push({
          path: ['issues', index],
          message: 'must be a sentence saying what to fix, not blank',
        })
      }
    })
    list = issues.filter((issue): issue is string => typeof issue === 'string')
  }
  if (decision === 'revise' && Array.isArray(issues) && issues.length === 0) {
    problems.push({ path: ['issues'], message: 'must list at least one issue when the decision is "revise"' })
  }
  if (problems.length > 0) return { issues: problems }
  return { value: Object.freeze({ decision: decision as 'accept' | 'revise', issues: Object.freeze(list) }) }
}

/** The verdict as a Standard Schema validator, shown to the model as {@link REFLECTION_VERDICT_SCHEMA}. */
const verdictSchema: StandardSchemaV1<unknown, ReflectionVerdict> = Object.freeze({
  '~standard': Object.freeze({ version: 1 as const, vendor: 'agent-core', validate }),
})

/**
 * The verdict contract of a reflection, from the models kit's `defineStructuredOutput`: the instructions
 * with {@link REFLECTION_VERDICT_SCHEMA}, the reading and checking of a reply, the corrections and the
 * `StructuredOutputError`. A reflection compiles its own; build one for a critic agent's
 * `structuredAnswer` so that its answers are verdicts too.
 * @param options - `maxCorrections`: times a refused verdict is sent back (at least 0, default 1)
 * @example
 * ```ts
 * import { defineAgent, structuredAnswer } from '@agent-core/kits/loop'
 * import { reflectionVerdictOutput } from '@agent-core/kits/reflection'
 * import type { ChatModel } from '@agent-core/core'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const model: ChatModel
 * declare const runTests: ModelTool
 * const critic = defineAgent({ model, tools: [runTests], answer: structuredAnswer({ output: reflectionVerdictOutput() }) })
 * ```
 */
export function reflectionVerdictOutput(
  options: { readonly maxCorrections?: number | undefined } = {},
): StructuredOutput<ReflectionVerdict> {
  if (typeof options !== 'object' || options === null) {
    refuseField(
      'input',
      'options',
      `must be an object { maxCorrections? } or be left out, but got ${describeValue(options)}`,
      options,
      { prefix: 'reflectionVerdictOutput: ' },
    )
  }
  return defineStructuredOutput<ReflectionVerdict>({
    name: 'Verdict',
    description: 'Your verdict on the draft: accept it, or ask for a revision and list the issues.',
    schema: verdictSchema,
    jsonSchema: REFLECTION_VERDICT_SCHEMA,
    maxCorrections: options.maxCorrections,
  })
}
