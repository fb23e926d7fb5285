import {
  assertBoolean,
  describeValue,
  InvalidDefinitionError,
  type ReadonlyRegistry,
  Registry,
  RegistryView,
} from '@agent-core/core'

/**
 * One policy: a synchronous condition over the caller's input, a human-readable description and the
 * name of the App handler that deals with a match.
 *
 * Plain objects and class instances both work: `when` is called as a method of the definition (so `this`
 * is the definition) and `description`/`handler` are read as properties (so prototype getters work).
 *
 * @example
 * ```ts
 * import { type PolicyDefinition } from '@agent-core/kits/policies'
 * const largeRefund: PolicyDefinition<{ amount: number }, 'ask-approval'> = {
 *   id: 'large-refund',
 *   description: 'Refunds above 500 need a human approval.',
 *   handler: 'ask-approval',
 *   when: (input) => input.amount > 500,
 * }
 * ```
 */
export interface PolicyDefinition<Input, Handler extends string = string> {
  /** Unique, non-empty id of the policy within its set. */
  readonly id: string
  /** Why the policy exists, in words a reviewer understands. Non-empty. */
  readonly description: string
  /** Name of the App handler responsible for a match (the set never runs it). Non-empty. */
  readonly handler: Handler
  /** True when the policy applies to `input`. Must return a boolean synchronously. */
  when(input: Input): boolean
}

/**
 * One matching policy, as reported by {@link PolicySet.assess}.
 * @example
 * ```ts
 * import { definePolicySet, type PolicyReason } from '@agent-core/kits/policies'
 * const set = definePolicySet([{ id: 'any', description: 'Always.', handler: 'log', when: () => true }])
 * const [reason]: readonly PolicyReason<'log'>[] = set.assess(null)
 * ```
 */
export interface PolicyReason<Handler extends string = string> {
  /** The matching policy's id. */
  readonly policyId: string
  /** The matching policy's description. */
  readonly description: string
  /** The matching policy's handler name. */
  readonly handler: Handler
}

/**
 * An ordered, id-keyed, sealed set of policies. `assess` reports every matching policy, not only the
 * first one, in declaration order.
 *
 * @example
 * ```ts
 * import { definePolicySet } from '@agent-core/kits/policies'
 * const policies = definePolicySet([
 *   { id: 'empty', description: 'The message is empty.', handler: 'reject', when: (text: string) => text.trim() === '' },
 *   { id: 'long', description: 'The message is too long.', handler: 'truncate', when: (text: string) => text.length > 10 },
 * ])
 * policies.assess('           ').map((reason) => reason.policyId) // ['empty', 'long']
 * ```
 */
export interface PolicySet<Input, Handler extends string = string>
  extends ReadonlyRegistry<PolicyDefinition<Input, Handler>> {
  /** The definitions as given, in declaration order. */
  readonly definitions: readonly PolicyDefinition<Input, Handler>[]
  /**
   * Runs every policy's `when` against `input`, in declaration order, and reports each match.
   * An empty array means no policy applies. An error thrown by `when` propagates unchanged.
   * @throws `RejectedThenableError` when a `when` returns a Promise
   * @throws `InvalidOutputError` when a `when` returns anything but a boolean
   */
  assess(input: Input): readonly PolicyReason<Handler>[]
}

interface PolicyFields {
  readonly description: string
  readonly handler: string
  readonly when: (input: unknown) => unknown
}

function readPolicy(definition: PolicyDefinition<unknown>): PolicyFields {
  const { id, description, handler, when } = definition
  const problems: string[] = []
  if (typeof description !== 'string' || description.trim() === '') {
    problems.push(`description must be a non-empty string (got ${describeValue(description)})`)
  }
  if (typeof handler !== 'string' || handler.length === 0) {
    problems.push(`handler must be the non-empty name of an App handler (got ${describeValue(handler)})`)
  }
  if (typeof when !== 'function') {
    problems.push(`when must be a function returning a boolean (got ${describeValue(when)})`)
  }
  if (problems.length > 0) {
    throw new InvalidDefinitionError(
      `Policy "${id}" is malformed: ${problems.join('; ')}. Give every policy an id, a description, a handler name and a when(input) predicate.`,
      { details: { id, problems } },
    )
  }
  return { description, handler, when: when as (input: unknown) => unknown }
}

class PolicySetImpl<Input, Handler extends string>
  extends RegistryView<PolicyDefinition<Input, Handler>>
  implements PolicySet<Input, Handler>
{
  readonly definitions: readonly PolicyDefinition<Input, Handler>[]

  constructor(definitions: Iterable<PolicyDefinition<Input, Handler>>) {
    super(
      Registry.create(definitions, {
        kind: 'policy',
        assertDefinition: (definition) => {
          readPolicy(definition as PolicyDefinition<unknown>)
        },
      }),
    )
    this.definitions = Object.freeze(this.values().slice())
  }

  assess(input: Input): readonly PolicyReason<Handler>[] {
    const reasons: PolicyReason<Handler>[] = []
    for (const definition of this.definitions) {
      const { description, handler, when } = readPolicy(definition as PolicyDefinition<unknown>)
      const matched = assertBoolean(when.call(definition, input), `policy "${definition.id}" when`)
      if (matched) {
        reasons.push(Object.freeze({ policyId: definition.id, description, handler: handler as Handler }))
      }
    }
    return Object.freeze(reasons)
  }
}

/**
 * Builds a {@link PolicySet} from policy definitions. The set is sealed: ids are unique and checked up front,
 * and each definition is validated (non-empty description and handler, a `when` function).
 *
 * Definitions are kept as given (class instances keep their prototype and receiver). The set is pure:
 * it needs no signal or context and never runs a handler; it only reports which ones apply.
 *
 * @param definitions - the policies, in the order `assess` reports them
 * @throws `InvalidDefinitionError` for a malformed definition or a non-array argument
 * @throws `InvalidIdError` for a missing or empty id, `DuplicateIdError` for a repeated id
 * @example
 * ```ts
 * import { definePolicySet } from '@agent-core/kits/policies'
 * interface Refund { amount: number; country: string }
 * const policies = definePolicySet([
 *   { id: 'large', description: 'Above 500.', handler: 'ask-approval', when: (r: Refund) => r.amount > 500 },
 *   { id: 'embargo', description: 'Blocked country.', handler: 'refuse', when: (r: Refund) => r.country === 'XX' },
 * ])
 * const reasons = policies.assess({ amount: 900, country: 'XX' })
 * reasons.map((reason) => reason.handler) // ['ask-approval', 'refuse']
 * ```
 */
export function definePolicySet<Input, Handler extends string = string>(
  definitions: readonly PolicyDefinition<Input, Handler>[],
): PolicySet<Input, Handler> {
  if (!Array.isArray(definitions)) {
    throw new InvalidDefinitionError(
      `definePolicySet expects an array of policy definitions, but got ${describeValue(definitions)}. Pass [{ id, description, handler, when }, ...].`,
      { details: { received: describeValue(definitions) } },
    )
  }
  return new PolicySetImpl<Input, Handler>(definitions)
}
