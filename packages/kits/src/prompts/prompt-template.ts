import { describeValue, refuseField } from '@agent-core/core'
import { MissingPromptVariablesError } from './prompt-errors.js'

/**
 * A value a placeholder may take: text, or a number or boolean (written with `String`). Anything else
 * (objects, arrays, `null`, `undefined`) is refused: format it yourself, so the model reads what you meant.
 * @example
 * ```ts
 * import type { PromptValue } from '@agent-core/kits/prompts'
 * const values: Record<string, PromptValue> = { name: 'Ada', age: 36, member: true }
 * ```
 */
export type PromptValue = string | number | boolean

/**
 * One piece of a template: literal text, or a placeholder by name.
 * @example
 * ```ts
 * import { definePromptTemplate, type PromptSegment } from '@agent-core/kits/prompts'
 * const segments: readonly PromptSegment[] = definePromptTemplate('Hi {{name}}!').segments
 * // [{ text: 'Hi ' }, { name: 'name' }, { text: '!' }]
 * ```
 */
export type PromptSegment = { readonly text: string } | { readonly name: string }

/**
 * What {@link PromptTemplate.check} finds for a set of values: the placeholders without a value and the
 * values no placeholder uses (a typo, or a value meant for another template).
 * @example
 * ```ts
 * import { definePromptTemplate, type PromptCheck } from '@agent-core/kits/prompts'
 * const check: PromptCheck = definePromptTemplate('{{a}} {{b}}').check({ a: 1, c: 2 })
 * // { missing: ['b'], unused: ['c'] }
 * ```
 */
export interface PromptCheck {
  /** Placeholders without a value, in order of first appearance. */
  readonly missing: readonly string[]
  /** Given names no placeholder uses, in the order given. */
  readonly unused: readonly string[]
}

/**
 * A text with `{{name}}` placeholders, parsed once. Immutable: {@link PromptTemplate.partial} returns a
 * new template.
 * @example
 * ```ts
 * import { definePromptTemplate, type PromptTemplate } from '@agent-core/kits/prompts'
 * const greet: PromptTemplate = definePromptTemplate('Hello {{name}}!')
 * greet.render({ name: 'Ada' }) // 'Hello Ada!'
 * ```
 */
export interface PromptTemplate {
  /** The template as literal text and placeholders, adjacent texts merged. */
  readonly segments: readonly PromptSegment[]
  /** The placeholder names, each once, in order of first appearance. */
  readonly variables: readonly string[]
  /**
   * The text with every placeholder replaced. Values no placeholder uses are ignored (see `check`).
   * @throws `MissingPromptVariablesError` naming every placeholder without a value
   * @throws `InvalidInputError` for a value that is not a string, a finite number or a boolean
   */
  render(values?: Readonly<Record<string, PromptValue>>): string
  /**
   * A new template with the given placeholders filled and every other one kept, so that
   * `t.partial(a).render(b)` equals `t.render({ ...a, ...b })` for disjoint `a` and `b`. A value is never
   * read as a template: `{{x}}` inside a value stays literal text.
   */
  partial(values: Readonly<Record<string, PromptValue>>): PromptTemplate
  /** The placeholders the values miss and the values no placeholder uses. Never throws for missing ones. */
  check(values?: Readonly<Record<string, unknown>>): PromptCheck
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/

/** Parses a template text into segments: `{{ name }}` placeholders, `\{{` a literal `{{`. */
function parse(source: string, field: string): PromptSegment[] {
  const segments: PromptSegment[] = []
  let text = ''
  let i = 0
  while (i < source.length) {
    if (source.startsWith('\\{{', i)) {
      text += '{{'
      i += 3
      continue
    }
    if (source.startsWith('{{', i)) {
      const close = source.indexOf('}}', i + 2)
      const name = close === -1 ? '' : source.slice(i + 2, close).trim()
      if (close === -1 || !NAME.test(name)) {
        const shown = close === -1 ? source.slice(i, i + 30) : source.slice(i, close + 2)
        refuseField(
          'input',
          field,
          `has a placeholder "${shown}" at offset ${i} that is not {{name}} (a letter or _ then letters, digits, _, . or -). Fix the name, or write \\{{ for literal braces`,
          shown,
        )
      }
      if (text !== '') segments.push(Object.freeze({ text }))
      text = ''
      segments.push(Object.freeze({ name }))
      i = close + 2
      continue
    }
    text += source[i]
    i += 1
  }
  if (text !== '') segments.push(Object.freeze({ text }))
  return segments
}

function valueText(value: unknown, name: string, field: string): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return refuseField(
    'input',
    `${field}.${name}`,
    `must be a string, a finite number or a boolean, but got ${describeValue(value)}. Format it as text first (for example with JSON.stringify)`,
    value,
  )
}

function readValues(values: unknown, field: string): Record<string, unknown> {
  if (values === undefined) return {}
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    refuseField(
      'input',
      field,
      `must be an object of placeholder values { name: value }, but got ${describeValue(values)}`,
      values,
    )
  }
  return values as Record<string, unknown>
}

function has(values: Record<string, unknown>, name: string): boolean {
  return Object.hasOwn(values, name) && values[name] !== undefined
}

class Template implements PromptTemplate {
  readonly segments: readonly PromptSegment[]
  readonly variables: readonly string[]
  readonly #field: string
  constructor(segments: readonly PromptSegment[], field: string) {
    const merged: PromptSegment[] = []
    for (const segment of segments) {
      const last = merged.at(-1)
      if ('text' in segment && last !== undefined && 'text' in last)
        merged[merged.length - 1] = Object.freeze({ text: last.text + segment.text })
      else merged.push(segment)
    }
    this.segments = Object.freeze(merged)
    this.variables = Object.freeze([
      ...new Set(merged.flatMap((segment) => ('name' in segment ? [segment.name] : []))),
    ])
    this.#field = field
    Object.freeze(this)
  }

  check(values?: Readonly<Record<string, unknown>>): PromptCheck {
    const given = readValues(values, 'values')
    const used = new Set(this.variables)
    return Object.freeze({
      missing: Object.freeze(this.variables.filter((name) => !has(given, name))),
      unused: Object.freeze(Object.keys(given).filter((name) => !used.has(name))),
    })
  }

  render(values?: Readonly<Record<string, PromptValue>>): string {
    const given = readValues(values, 'values')
    const missing = this.variables.filter((name) => !has(given, name))
    if (missing.length > 0) {
      const where = this.#field === 'template' ? 'The template' : `The template at ${this.#field}`
      throw new MissingPromptVariablesError(
        `${where} needs a value for ${missing.map((name) => `"${name}"`).join(', ')}. Pass ${missing.length === 1 ? 'it' : 'them'} to render, or fill some now with partial() and the rest later.`,
        {
          details: {
            missing: Object.freeze(missing),
            given: Object.freeze(Object.keys(given)),
            ...(this.#field === 'template' ? {} : { field: this.#field }),
          },
        },
      )
    }
    let out = ''
    for (const segment of this.segments)
      out += 'text' in segment ? segment.text : valueText(given[segment.name], segment.name, 'values')
    return out
  }

  partial(values: Readonly<Record<string, PromptValue>>): PromptTemplate {
    const given = readValues(values ?? null, 'values')
    return new Template(
      this.segments.map((segment) =>
        'name' in segment && has(given, segment.name)
          ? { text: valueText(given[segment.name], segment.name, 'values') }
          : segment,
      ),
      this.#field,
    )
  }
}

/** Builds a template for a chat prompt part, naming it by its place in errors. */
export function templateAt(source: unknown, field: string): PromptTemplate {
  if (typeof source !== 'string') {
    refuseField('input', field, `must be the template text, but got ${describeValue(source)}`, source)
  }
  return new Template(parse(source, field), field)
}

/**
 * Parses a prompt template: `{{name}}` placeholders (spaces inside the braces are allowed; a name is a
 * letter or `_` then letters, digits, `_`, `.` or `-`), `\{{` for literal braces.
 * @throws `InvalidInputError` for a text that is not a string, or a `{{` that does not open a valid placeholder
 * @example
 * ```ts
 * import { definePromptTemplate } from '@agent-core/kits/prompts'
 * const template = definePromptTemplate('Summarize {{topic}} for {{ audience }}.')
 * const forKids = template.partial({ audience: 'children' })
 * forKids.variables // ['topic']
 * forKids.render({ topic: 'tides' }) // 'Summarize tides for children.'
 * template.check({ topic: 'tides', tone: 'warm' }) // { missing: ['audience'], unused: ['tone'] }
 * ```
 */
export function definePromptTemplate(source: string): PromptTemplate {
  return templateAt(source, 'template')
}
