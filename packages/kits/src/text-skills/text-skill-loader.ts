import {
  assertBoolean,
  assertFunction,
  assertNonEmptyString,
  assertNotThenable,
  assertObject,
  DuplicateIdError,
  describeValue,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidOutputError,
  isAbortSignal,
  Registry,
  refuseField,
  throwIfAborted,
  UnknownIdError,
} from '@agent-core/core'
import { type ParsedTextSkill, parseTextSkill } from './parse-text-skill.js'
import { checkSkillPath } from './skill-path.js'

/**
 * The one kind a text skill has: a workflow written as text, run by a model with the listed tools.
 * @example
 * ```ts
 * import type { TextSkillKind } from '@agent-core/kits/text-skills'
 * const kind: TextSkillKind = 'text-workflow'
 * ```
 */
export type TextSkillKind = 'text-workflow'

/**
 * A skill registration: the single source of a skill's id and tool references. May be a plain object or
 * a class instance (prototype getters are read like fields).
 * @example
 * ```ts
 * import type { TextSkillEntry } from '@agent-core/kits/text-skills'
 * const triage: TextSkillEntry = { id: 'triage', kind: 'text-workflow', entry: 'skills/triage.md', toolIds: ['search'] }
 * ```
 */
export interface TextSkillEntry {
  readonly id: string
  readonly kind: TextSkillKind
  /** The skill file, relative to the skill root: `/`-separated, no `..`, not absolute. */
  readonly entry: string
  /** The ids of the tools the workflow may use; each must be a known tool. */
  readonly toolIds: readonly string[]
}

/**
 * What a catalog shows a model about one skill, without its body.
 * @example
 * ```ts
 * import type { TextSkill, TextSkillCatalogEntry } from '@agent-core/kits/text-skills'
 * const catalog = (skills: Iterable<TextSkill>): TextSkillCatalogEntry[] => [...skills].map((skill) => skill.catalog)
 * ```
 */
export interface TextSkillCatalogEntry {
  readonly id: string
  readonly kind: TextSkillKind
  readonly toolIds: readonly string[]
  readonly description: string
}

/**
 * A loaded skill: its registration fields, its catalog entry and its body.
 * @example
 * ```ts
 * import type { TextSkill } from '@agent-core/kits/text-skills'
 * const prompt = (skill: TextSkill) => `Follow the workflow "${skill.id}" using ${skill.toolIds.join(', ')}:\n${skill.body}`
 * ```
 */
export interface TextSkill {
  readonly id: string
  readonly kind: TextSkillKind
  /** The normalized entry path the file was read from. */
  readonly entry: string
  readonly toolIds: readonly string[]
  readonly catalog: TextSkillCatalogEntry
  readonly body: string
}

/**
 * A custom parser of skill files. Synchronous. Receives the text and the checked registration
 * (`entry` normalized) and returns the catalog description and the body.
 * @example
 * ```ts
 * import { defineTextSkillLoader, type TextSkillParser } from '@agent-core/kits/text-skills'
 * const firstLine: TextSkillParser = (text) => {
 *   const [description = '', ...rest] = text.split('\n')
 *   return { description, body: rest.join('\n') }
 * }
 * const loader = defineTextSkillLoader({ tools: [], parse: firstLine })
 * ```
 */
export type TextSkillParser = (text: string, skill: TextSkillEntry) => ParsedTextSkill

/**
 * Replacements for the errors the loader throws; each may be a method of a class instance.
 * @example
 * ```ts
 * import { defineTextSkillLoader, type TextSkillErrorFactories } from '@agent-core/kits/text-skills'
 * const errors: TextSkillErrorFactories = {
 *   unknownTool: (toolId, skillId) => new Error(`skill ${skillId} uses ${toolId}, which this App does not offer`),
 * }
 * const loader = defineTextSkillLoader({ tools: ['search'], errors })
 * ```
 */
export interface TextSkillErrorFactories {
  /** Two registrations share `id`. Default: DuplicateIdError. */
  duplicate?(id: string): Error
  /** A registration references a tool that is not known. Default: UnknownIdError. */
  unknownTool?(toolId: string, skillId: string): Error
  /** A registration's entry path is refused; `reason` says why. Default: InvalidDefinitionError. */
  invalidPath?(path: string, skillId: string, reason: string): Error
}

/**
 * The tools skills may reference: ids, or anything with `has(id)` (a core `Registry`, a `Set`).
 * @example
 * ```ts
 * import type { KnownTools } from '@agent-core/kits/text-skills'
 * const listed: KnownTools = ['search', 'label']
 * const fromSet: KnownTools = new Set(['search', 'label'])
 * ```
 */
export type KnownTools = Iterable<string> | { has(id: string): boolean }

/**
 * Static declaration of a loader.
 * @example
 * ```ts
 * import { defineTextSkillLoader, type TextSkillLoaderDefinition } from '@agent-core/kits/text-skills'
 * const definition: TextSkillLoaderDefinition = { tools: ['search', 'label'], idPattern: /^[a-z][a-z-]*$/ }
 * const loader = defineTextSkillLoader(definition)
 * ```
 */
export interface TextSkillLoaderDefinition {
  /** The tools skills may reference. */
  readonly tools: KnownTools
  /** Skill ids must match this pattern in full (anchor it). Default: any non-empty string. */
  readonly idPattern?: RegExp
  /** A synchronous parser. Default {@link parseTextSkill}. */
  readonly parse?: TextSkillParser
  /** Replacement error factories. */
  readonly errors?: TextSkillErrorFactories
}

/**
 * The request of {@link TextSkillLoader.load}.
 * @example
 * ```ts
 * import type { TextSkillLoadInput } from '@agent-core/kits/text-skills'
 * const input: TextSkillLoadInput = {
 *   entries: [{ id: 'triage', kind: 'text-workflow', entry: 'skills/triage.md', toolIds: [] }],
 * }
 * ```
 */
export interface TextSkillLoadInput {
  /** The registrations, in catalog order. */
  readonly entries: Iterable<TextSkillEntry>
}

/**
 * The App's port for real file reads, plus an optional cancellation signal. `read` receives a normalized
 * path relative to the skill root and must return the decoded text synchronously; it may be a method of
 * a class instance.
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs'
 * import { join } from 'node:path'
 * import type { TextSkillLoadContext } from '@agent-core/kits/text-skills'
 * const context: TextSkillLoadContext = {
 *   read: (path) => readFileSync(join('/srv/app/skills', path), 'utf8'),
 *   signal: AbortSignal.timeout(2_000),
 * }
 * ```
 */
export interface TextSkillLoadContext {
  read(path: string): string
  readonly signal?: AbortSignal | undefined
}

/**
 * A compiled loader, built by {@link defineTextSkillLoader}.
 * @example
 * ```ts
 * import { defineTextSkillLoader, type TextSkillLoader } from '@agent-core/kits/text-skills'
 * const loader: TextSkillLoader = defineTextSkillLoader({ tools: ['label'] })
 * const skills = loader.load(
 *   { entries: [{ id: 'triage', kind: 'text-workflow', entry: 'triage.md', toolIds: ['label'] }] },
 *   { read: () => '# Triage\nSort new issues.\n' },
 * )
 * skills.ids() // ['triage']
 * ```
 */
export interface TextSkillLoader {
  /**
   * Checks every registration (id, path, tool references, duplicates), then reads and parses each file in
   * order, and returns the skills as a sealed registry in registration order.
   */
  load(input: TextSkillLoadInput, context: TextSkillLoadContext): Registry<TextSkill>
}

type Method = (...args: never[]) => unknown

function method(owner: object, key: string, what: string): Method | undefined {
  const value = (owner as Record<string, unknown>)[key]
  if (value === undefined) return undefined
  assertFunction(value, key, {
    where: what,
    error: InvalidDefinitionError,
    hint: `Pass ${key} as a function, or leave it out.`,
  })
  return value
}

function knownTools(tools: unknown): { has(id: string): boolean; list: readonly string[] | undefined } {
  if (typeof tools === 'object' && tools !== null) {
    const has = (tools as { has?: unknown }).has
    if (typeof has === 'function') {
      return {
        has: (id) => assertBoolean(Reflect.apply(has, tools, [id]), 'text skill loader tools.has'),
        list: undefined,
      }
    }
    if (typeof (tools as Iterable<unknown>)[Symbol.iterator] === 'function') {
      const list = [...(tools as Iterable<unknown>)]
      for (const id of list) {
        assertNonEmptyString(id, 'tools', {
          where: 'text skill loader',
          error: InvalidDefinitionError,
          hint: 'List tool ids, or pass an object with has(id).',
        })
      }
      const set = new Set(list as string[])
      return { has: (id) => set.has(id), list: Object.freeze([...set]) }
    }
  }
  return refuseField(
    'definition',
    'tools',
    `must be the known tool ids (an array) or an object with has(id) such as a Registry or a Set, but got ${describeValue(tools)}`,
    tools,
    { prefix: 'text skill loader: ' },
  )
}

/**
 * Defines a loader of text skills: workflows written as text files, registered by the App with their
 * tool references.
 *
 * `load({ entries }, { read })` first checks every registration, in order and each field read once: the id
 * (a non-empty string matching `idPattern`), `kind: 'text-workflow'`, the entry path (inside the skill root:
 * no `..`, no absolute path, no NUL byte), the tool references (known, listed once) and duplicate ids. Only
 * when all of them pass does it call `read` for each file, then the parser; both must be synchronous.
 * Ids and tool references come only from the registrations, never from the file. The read port, the
 * registrations and the error factories may be class instances: getters are read as fields and methods
 * are called on their own receiver.
 *
 * @throws InvalidDefinitionError when the definition is malformed
 * @example
 * ```ts
 * import { defineTextSkillLoader } from '@agent-core/kits/text-skills'
 *
 * const loader = defineTextSkillLoader({ tools: ['search'] })
 * const files: Record<string, string> = { 'triage.md': 'Sort new issues by area.\n\n1. Search for duplicates.\n' }
 * const skills = loader.load(
 *   { entries: [{ id: 'triage', kind: 'text-workflow', entry: './triage.md', toolIds: ['search'] }] },
 *   { read: (path) => files[path] ?? '' },
 * )
 * skills.require('triage').catalog.description // 'Sort new issues by area.'
 * ```
 */
export function defineTextSkillLoader(definition: TextSkillLoaderDefinition): TextSkillLoader {
  assertObject(definition as unknown, 'definition', {
    where: 'defineTextSkillLoader',
    error: InvalidDefinitionError,
    hint: 'Pass { tools, parse?, errors?, idPattern? }.',
  })
  const tools = knownTools(definition.tools)
  const idPattern = definition.idPattern
  if (idPattern !== undefined && !(idPattern instanceof RegExp))
    refuseField(
      'definition',
      'idPattern',
      `must be a RegExp, but got ${describeValue(idPattern)}. Pass a regular expression such as /^[a-z-]+$/, or leave it out`,
      idPattern,
      { prefix: 'text skill loader: ' },
    )
  const parse = method(definition, 'parse', 'text skill loader')
  const errors = definition.errors
  if (errors !== undefined)
    assertObject(errors as unknown, 'errors', {
      where: 'text skill loader',
      error: InvalidDefinitionError,
      hint: 'Pass an object of error factories { duplicate?, unknownTool?, invalidPath? }, or leave it out.',
    })
  const factories = {
    duplicate: errors && method(errors, 'duplicate', 'text skill loader errors'),
    unknownTool: errors && method(errors, 'unknownTool', 'text skill loader errors'),
    invalidPath: errors && method(errors, 'invalidPath', 'text skill loader errors'),
  }

  /** Builds the error to throw: the App's factory (on its receiver) when given, else the default. */
  function failure(name: keyof typeof factories, args: readonly unknown[], fallback: () => Error): unknown {
    const factory = factories[name]
    if (factory === undefined) return fallback()
    const made = assertNotThenable(Reflect.apply(factory, errors, args), `text skill loader errors.${name}`)
    if (!(made instanceof Error)) {
      return new InvalidOutputError(
        `text skill loader errors.${name} must return an Error to throw, but returned ${describeValue(made)}.`,
        { details: { hook: `errors.${name}`, returned: describeValue(made) } },
      )
    }
    return made
  }

  function checkId(id: unknown, index: number): string {
    if (typeof id !== 'string' || id.length === 0) {
      throw new InvalidIdError(
        `Text skill registration ${index} needs a non-empty string id, but got ${describeValue(id)}.`,
        { details: { index, id: describeValue(id) } },
      )
    }
    if (idPattern) {
      idPattern.lastIndex = 0
      const ok = idPattern.test(id)
      idPattern.lastIndex = 0
      if (!ok) {
        throw new InvalidIdError(
          `The text skill id "${id}" does not match the required pattern ${idPattern}. Choose an id that matches it.`,
          { details: { index, id, pattern: idPattern.source } },
        )
      }
    }
    return id
  }

  function checkToolIds(toolIds: unknown, id: string): readonly string[] {
    if (!Array.isArray(toolIds))
      refuseField(
        'definition',
        'toolIds',
        `must be an array of tool ids (use [] for none), but got ${describeValue(toolIds)}`,
        toolIds,
        { prefix: `Text skill "${id}": `, details: { id } },
      )
    const seen = new Set<string>()
    for (let i = 0; i < toolIds.length; i++) {
      const toolId: unknown = toolIds[i]
      assertNonEmptyString(toolId, `toolIds[${i}]`, {
        where: `Text skill "${id}"`,
        error: InvalidDefinitionError,
        details: { id, index: i },
        hint: 'List the ids of registered tools.',
      })
      if (seen.has(toolId)) {
        refuseField(
          'definition',
          `toolIds[${i}]`,
          `lists the tool "${toolId}" a second time. List each tool once`,
          toolId,
          { prefix: `Text skill "${id}": `, details: { id, index: i, toolId } },
        )
      }
      if (!tools.has(toolId)) {
        throw failure(
          'unknownTool',
          [toolId, id],
          () =>
            new UnknownIdError(
              `Text skill "${id}" references the tool "${toolId}", which is not a known tool.${tools.list ? ` Known tools: ${tools.list.length ? tools.list.map((t) => `"${t}"`).join(', ') : '(none)'}.` : ''} Register the tool or remove the reference.`,
              { details: { id: toolId, kind: 'tool', skillId: id, known: tools.list } },
            ),
        )
      }
      seen.add(toolId)
    }
    return Object.freeze([...seen])
  }

  /** Reads each field of a registration once and checks it; nothing is read from files here. */
  function checkEntry(registration: unknown, index: number, ids: Set<string>): TextSkillEntry {
    assertObject(registration, `entries[${index}]`, {
      where: 'load',
      error: InvalidDefinitionError,
      details: { index },
      hint: 'Register each text skill as { id, kind, entry, toolIds }.',
    })
    const fields = registration as Record<string, unknown>
    const id = checkId(fields.id, index)
    const kind = fields.kind
    if (kind !== 'text-workflow')
      refuseField(
        'definition',
        'kind',
        `must be 'text-workflow', but got ${describeValue(kind)}. Text skills are workflows written as text`,
        kind,
        { prefix: `Text skill "${id}": `, details: { id } },
      )
    const rawEntry = fields.entry
    const path = checkSkillPath(rawEntry)
    if (!path.ok) {
      const shown = typeof rawEntry === 'string' ? rawEntry : describeValue(rawEntry)
      throw failure(
        'invalidPath',
        [shown, id, path.reason],
        () =>
          new InvalidDefinitionError(
            `Text skill "${id}": the entry path ${JSON.stringify(shown.replaceAll('\u0000', '\\0'))} is refused because ${path.reason}. Use a relative path inside the skill root, such as "skills/${id}.md".`,
            { details: { id, field: 'entry', entry: shown, reason: path.reason } },
          ),
      )
    }
    const toolIds = checkToolIds(fields.toolIds, id)
    if (ids.has(id)) {
      throw failure(
        'duplicate',
        [id],
        () =>
          new DuplicateIdError(
            `A text skill with id "${id}" is already registered. Ids must be unique; rename one of them.`,
            { details: { id, kind: 'text skill' } },
          ),
      )
    }
    ids.add(id)
    return Object.freeze({ id, kind: 'text-workflow', entry: path.path, toolIds })
  }

  function parseFile(text: string, registration: TextSkillEntry): ParsedTextSkill {
    const hook = `text skill "${registration.id}" parse`
    const parsed: unknown = parse
      ? assertNotThenable(Reflect.apply(parse, definition, [text, registration]), hook)
      : parseTextSkill(text, registration.entry)
    const description = (parsed as { description?: unknown } | null)?.description
    const body = (parsed as { body?: unknown } | null)?.body
    if (typeof description !== 'string' || description.trim() === '' || typeof body !== 'string') {
      refuseField(
        'output',
        'parse',
        `must return { description, body } with a non-empty description string and a body string, but returned ${describeValue(parsed)}${typeof parsed === 'object' && parsed !== null ? ` (description: ${describeValue(description)}, body: ${describeValue(body)})` : ''}`,
        parsed,
        {
          prefix: `text skill "${registration.id}" `,
          details: { id: registration.id, hook: 'parse', returned: describeValue(parsed) },
        },
      )
    }
    return { description, body }
  }

  return Object.freeze({
    load(input: TextSkillLoadInput, context: TextSkillLoadContext): Registry<TextSkill> {
      assertObject(input as unknown, 'input', { where: 'load', hint: 'Pass load({ entries }, { read }).' })
      const entries: unknown = input.entries
      if (
        typeof entries !== 'object' ||
        entries === null ||
        typeof (entries as Iterable<unknown>)[Symbol.iterator] !== 'function'
      )
        refuseField(
          'input',
          'entries',
          `must be an array (or iterable) of text skill registrations, but got ${describeValue(entries)}`,
          entries,
          { prefix: 'load: ' },
        )
      assertObject(context as unknown, 'context', {
        where: 'load',
        hint: "Pass a context { read } whose read(path) returns a file's text.",
      })
      const read = context.read as unknown
      assertFunction(read, 'context.read', {
        where: 'load',
        hint: "Pass read(path) returning the file's text synchronously.",
      })
      const signal: unknown = context.signal
      if (signal !== undefined && !isAbortSignal(signal))
        refuseField(
          'input',
          'context.signal',
          `must be an AbortSignal or be left out, but got ${describeValue(signal)}`,
          signal,
          { prefix: 'load: ' },
        )

      // Every check of every registration happens before the first read.
      const ids = new Set<string>()
      const checked: TextSkillEntry[] = []
      let index = 0
      for (const registration of entries as Iterable<unknown>)
        checked.push(checkEntry(registration, index++, ids))

      const skills: TextSkill[] = []
      for (const registration of checked) {
        throwIfAborted(signal as AbortSignal | undefined, `before reading text skill "${registration.id}"`)
        const hook = `context.read("${registration.entry}")`
        const text = assertNotThenable(Reflect.apply(read, context, [registration.entry]), hook)
        if (typeof text !== 'string') {
          refuseField(
            'output',
            'context.read',
            `must return the file's text as a string for "${registration.entry}", but returned ${describeValue(text)}. Decode the file (for example readFileSync(path, 'utf8'))`,
            text,
            {
              prefix: `Text skill "${registration.id}": `,
              details: {
                id: registration.id,
                hook: 'read',
                path: registration.entry,
                returned: describeValue(text),
              },
            },
          )
        }
        const { description, body } = parseFile(text, registration)
        const catalog: TextSkillCatalogEntry = Object.freeze({
          id: registration.id,
          kind: registration.kind,
          toolIds: registration.toolIds,
          description,
        })
        skills.push(Object.freeze({ ...registration, catalog, body }))
      }
      return Registry.create(skills, { kind: 'text skill' })
    },
  })
}
