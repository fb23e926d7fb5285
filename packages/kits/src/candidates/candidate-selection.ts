import {
  assertNonEmptyString,
  assertNotThenable,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidStateError,
  refuseField,
} from '@agent-core/core'

/** The prefix of the parse request's refusals: `parse request.<field> ...`. */
const PARSE_REQUEST = { prefix: 'parse request.' } as const

/**
 * The declaration given to {@link defineCandidateSelection}.
 * @example
 * ```ts
 * import { type CandidateSelectionDefinition } from '@agent-core/kits/candidates'
 * const definition: CandidateSelectionDefinition = { maxCandidates: 3, minCandidates: 2 }
 * ```
 */
export interface CandidateSelectionDefinition {
  /** Most candidates one submission may carry. Required: a safe integer of at least `minCandidates`. */
  readonly maxCandidates: number
  /**
   * Fewest candidates a candidate envelope must carry. Default 1; at least 1. It constrains envelopes only:
   * an ordinary value is always returned as a one-element array.
   */
  readonly minCandidates?: number
  /**
   * Name of the field that marks a candidate envelope, `{ [envelopeField]: [...] }`. Default
   * `'candidates'`. Pick a name your ordinary values never use as a key.
   */
  readonly envelopeField?: string
}

/**
 * The named request of {@link CandidateSelection.parse}.
 * @example
 * ```ts
 * import { type CandidateParseRequest } from '@agent-core/kits/candidates'
 * const request: CandidateParseRequest = { value: { candidates: ['a', 'b'] }, allowed: true }
 * ```
 */
export interface CandidateParseRequest {
  /** What was submitted: an ordinary value, or an envelope `{ candidates: [...] }`. */
  readonly value: unknown
  /** Whether this task accepts a candidate envelope at all. Required. */
  readonly allowed: boolean
  /**
   * True once the task has taken over, that is, once it committed to one candidate and started working
   * with it. From then on no envelope (no new candidates) is accepted; an ordinary value still is.
   * Default false.
   */
  readonly takenOver?: boolean
}

/**
 * A compiled candidate selection. `parse` always returns an array in submission order: the envelope's
 * candidates, or a single-element array for an ordinary value.
 *
 * @example
 * ```ts
 * import { defineCandidateSelection } from '@agent-core/kits/candidates'
 * const selection = defineCandidateSelection({ maxCandidates: 3 })
 * selection.parse({ value: { candidates: ['a', 'b'] }, allowed: true }) // ['a', 'b']
 * selection.parse({ value: 'a', allowed: true }) // ['a']
 * ```
 */
export interface CandidateSelection {
  readonly minCandidates: number
  readonly maxCandidates: number
  readonly envelopeField: string
  /**
   * Parses one submission.
   *
   * - An ordinary value (anything but a plain object with the envelope field) becomes `[value]`.
   * - An envelope is accepted only when `allowed` is true and `takenOver` is not; its candidates are
   *   returned in the submitted order, without reordering, deduplication or padding.
   * - An accepted envelope must carry from `minCandidates` to `maxCandidates` candidates. The bounds
   *   constrain envelopes only: an ordinary value is returned as `[value]` whatever `minCandidates` says.
   *   (The contract's rule: "an ordinary single value still returns a single-element array".)
   *
   * @throws `InvalidInputError` for a malformed request, a missing (`undefined`) value or candidate, an
   * envelope where none is allowed, an envelope with extra fields, a nested envelope, or an envelope whose
   * count is out of bounds
   * @throws `InvalidStateError` for an envelope after the task has taken over
   * @throws `RejectedThenableError` when the value or a candidate is a Promise
   */
  parse(request: CandidateParseRequest): readonly unknown[]
}

const DEFAULT_FIELD = 'candidates'

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

class CandidateSelectionImpl implements CandidateSelection {
  constructor(
    readonly minCandidates: number,
    readonly maxCandidates: number,
    readonly envelopeField: string,
  ) {
    Object.freeze(this)
  }

  parse(request: CandidateParseRequest): readonly unknown[] {
    assertObject(request as unknown, 'request', {
      where: 'parse',
      arrays: false,
      hint: 'Pass parse({ value, allowed: true | false }).',
    })
    const { value, allowed, takenOver = false } = request
    if (typeof allowed !== 'boolean')
      refuseField(
        'input',
        'allowed',
        `must be a boolean saying whether this task accepts candidates, but got ${describeValue(allowed)}`,
        allowed,
        PARSE_REQUEST,
      )
    if (typeof takenOver !== 'boolean')
      refuseField(
        'input',
        'takenOver',
        `must be a boolean (true once the task has taken over), or left out, but got ${describeValue(takenOver)}`,
        takenOver,
        PARSE_REQUEST,
      )
    const submitted = this.#readCandidate(value, 'value')
    // minCandidates and maxCandidates constrain envelopes only: an ordinary value is always [value]
    if (!this.#isEnvelope(submitted)) return Object.freeze([submitted])
    const field = this.envelopeField
    if (takenOver) {
      throw new InvalidStateError(
        `A candidate envelope was submitted after the task had taken over, so new candidates cannot be accepted. Submit an ordinary value for the task that took over.`,
        { details: { field } },
      )
    }
    if (!allowed) {
      refuseField(
        'input',
        field,
        `makes the value a candidate envelope ({ ${field}: [...] }), but this task does not accept a candidate envelope. Submit a single ordinary value instead`,
        submitted[field],
      )
    }
    const extra = Object.keys(submitted).filter((key) => key !== field)
    if (extra.length > 0) {
      refuseField(
        'input',
        field,
        `must be the only field of a candidate envelope, but it also has ${extra.map((k) => `"${k}"`).join(', ')}. Move that data into the candidates themselves`,
        submitted,
        { details: { extra } },
      )
    }
    const list = submitted[field]
    if (!Array.isArray(list))
      refuseField(
        'input',
        field,
        `must be an array of candidates, but got ${describeValue(list)}. Submit { ${field}: [first, second, ...] }`,
        list,
        { prefix: "A candidate envelope's " },
      )
    this.#assertCount(list.length, 'the envelope')
    const candidates: unknown[] = []
    for (let index = 0; index < list.length; index++) {
      const candidate = this.#readCandidate(list[index], `${field}[${index}]`)
      if (this.#isEnvelope(candidate)) {
        throw new InvalidInputError(
          `${field}[${index}] is itself a candidate envelope, and envelopes may not contain envelopes. Flatten them into one "${field}" array.`,
          { details: { field, index } },
        )
      }
      candidates.push(candidate)
    }
    return Object.freeze(candidates)
  }

  #isEnvelope(value: unknown): value is Record<string, unknown> {
    return isPlainObject(value) && Object.hasOwn(value, this.envelopeField)
  }

  #readCandidate(value: unknown, field: string): unknown {
    const plain = assertNotThenable(value, `candidate ${field}`)
    if (plain === undefined)
      refuseField(
        'input',
        field,
        "is missing (undefined). Submit a value; 0, false, '' and null are accepted",
        plain,
        {
          prefix: 'The candidate ',
        },
      )
    return plain
  }

  #assertCount(count: number, what: string): void {
    if (count < this.minCandidates || count > this.maxCandidates) {
      const range =
        this.minCandidates === this.maxCandidates
          ? `exactly ${this.minCandidates}`
          : `from ${this.minCandidates} to ${this.maxCandidates}`
      throw new InvalidInputError(
        `This task accepts ${range} candidates in an envelope, but ${what} carries ${count}. Submit ${range} candidates.`,
        { details: { count, minCandidates: this.minCandidates, maxCandidates: this.maxCandidates } },
      )
    }
  }
}

/**
 * Builds a {@link CandidateSelection}: how many candidates one submission may carry, and what an envelope
 * of candidates looks like. `maxCandidates` must be configured; `minCandidates` defaults to 1.
 *
 * The definition is read once (class instances with getters work); the selection itself is immutable
 * and holds no per-task state: whether the task allows candidates and whether it has taken over are
 * passed to every `parse` call.
 *
 * @throws `InvalidDefinitionError` when `maxCandidates` is missing or not a safe integer of at least
 * `minCandidates`, when `minCandidates` is not a safe integer of at least 1, or when `envelopeField` is
 * not a non-empty string
 * @example
 * ```ts
 * import { defineCandidateSelection } from '@agent-core/kits/candidates'
 * const selection = defineCandidateSelection({ maxCandidates: 2 })
 * selection.parse({ value: { candidates: [0, false] }, allowed: true }) // [0, false]
 * selection.parse({ value: 'plain', allowed: false }) // ['plain']
 * ```
 */
export function defineCandidateSelection(definition: CandidateSelectionDefinition): CandidateSelection {
  const where = 'defineCandidateSelection'
  const error = InvalidDefinitionError
  assertObject(definition as unknown, 'definition', {
    where,
    error,
    arrays: false,
    hint: 'Pass { maxCandidates, minCandidates? }.',
  })
  const { maxCandidates, minCandidates = 1, envelopeField = DEFAULT_FIELD } = definition
  if (maxCandidates === undefined)
    refuseField(
      'definition',
      'maxCandidates',
      'must be configured explicitly; there is no default. Pass, for example, { maxCandidates: 3 }',
      maxCandidates,
      { prefix: `${where}: ` },
    )
  assertSafeInteger(minCandidates, 'minCandidates', {
    min: 1,
    where,
    error,
    hint: 'Leave it out for 1, or pass for example minCandidates: 2.',
  })
  assertSafeInteger(maxCandidates, 'maxCandidates', {
    min: minCandidates,
    where,
    error,
    hint:
      minCandidates > 1
        ? `It may not be below minCandidates (${minCandidates}); configure for example maxCandidates: ${minCandidates + 2}.`
        : 'Configure it explicitly, for example maxCandidates: 3.',
  })
  assertNonEmptyString(envelopeField, 'envelopeField', {
    where,
    error,
    hint: `Leave it out to use "${DEFAULT_FIELD}".`,
  })
  return new CandidateSelectionImpl(minCandidates, maxCandidates, envelopeField)
}
