import {
  assertBoolean,
  assertNotThenable,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  isStandardSchema,
  isThenable,
  type JsonSchema,
  type JsonSchemaValidator,
  refuseField,
} from '@agent-core/core'
import { type CompiledSchema, compileJsonSchema, compileSchema } from '@agent-core/core/tools'
import { type CommandDefinition, commandOwner, type FieldMap } from '../command-catalog.js'
import { CommandRejectedError } from '../interaction-errors.js'
import type { ProtocolField } from '../protocol-field.js'

type Callback = (this: unknown, ...args: never[]) => unknown

/** A field as read once when the protocol is compiled. */
interface CompiledField {
  readonly name: string
  readonly optional: boolean
  readonly hasDefault: boolean
  readonly defaultValue: unknown
  readonly receiver: unknown
  readonly assert: Callback | undefined
  readonly parse: Callback | undefined
  /** The field's Standard Schema, compiled; `undefined` for a JSON Schema field. */
  readonly standard: CompiledSchema | undefined
}

/**
 * A command of a compiled protocol: its schemas (`inputJsonSchema` for the complete input,
 * `modelJsonSchema` for what a model may submit, `fieldSchemas` per field) and its definition.
 * @example
 * ```ts
 * import type { CompiledCommand } from '@agent-core/kits/interaction'
 * const asTool = (command: CompiledCommand) => ({ name: command.id, description: command.description, parameters: command.modelJsonSchema })
 * ```
 */
export interface CompiledCommand {
  readonly id: string
  readonly description: string
  /** The complete input: the command field and every field; required are all fields not marked optional. */
  readonly inputJsonSchema: { readonly [keyword: string]: unknown }
  /** What a model may submit: fields with a default (or marked optional) may be left out. */
  readonly modelJsonSchema: { readonly [keyword: string]: unknown }
  /** Each field's schema (with its `default`), by name. */
  readonly fieldSchemas: Readonly<Record<string, JsonSchema>>
  readonly definition: CommandDefinition<FieldMap, unknown, unknown>
}

/** Everything dispatch needs about one command, read once. */
export interface CommandRuntime {
  readonly compiled: CompiledCommand
  readonly validator: JsonSchemaValidator
  readonly fields: readonly CompiledField[]
  readonly receiver: unknown
  readonly when: Callback | undefined
  readonly occur: readonly Callback[]
  readonly refine: Callback | undefined
  readonly format: Callback | undefined
}

const MAX_DEPTH = 100

/** True for a value JSON holds exactly (finite numbers, plain objects and dense arrays, no cycles). */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false
    for (let i = 0; i < value.length; i++)
      if (!Object.hasOwn(value, i) || !isPlainJson(value[i], depth + 1)) return false
    return true
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!
    if (!('value' in descriptor) || !isPlainJson(descriptor.value, depth + 1)) return false
  }
  return true
}

function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) freezeDeep(child)
  }
  return value
}

/** Compiles one command of a protocol whose command field is `commandField`. */
export function compileCommand(
  definition: CommandDefinition<FieldMap, unknown, unknown>,
  commandField: string,
): CommandRuntime {
  const id = definition.id
  const owner = commandOwner(definition)
  const context = { prefix: `Command "${id}": `, details: { id } }
  const fields: CompiledField[] = []
  const properties: Record<string, JsonSchema> = Object.create(null)
  const fieldSchemas: Record<string, JsonSchema> = {}
  const inputRequired: string[] = [commandField]
  const modelRequired: string[] = [commandField]
  for (const name of Object.keys(definition.fields)) {
    const where = `fields.${name}`
    if (name === commandField) {
      refuseField(
        'definition',
        where,
        `has the name of the command field "${commandField}"; the command field selects the command and cannot be a field`,
        name,
        context,
      )
    }
    const field = definition.fields[name] as ProtocolField<unknown, unknown>
    if (typeof field !== 'object' || field === null)
      refuseField('definition', where, 'must be a field object { jsonSchema, ... }', field, context)
    const { optional, receiver, assert, parse } = field
    if (field.schema !== undefined && field.jsonSchema !== undefined)
      refuseField('definition', where, 'has both schema and jsonSchema; give one of them', field, context)
    if (field.schema !== undefined && !isStandardSchema(field.schema))
      refuseField(
        'definition',
        `${where}.schema`,
        'must be a Standard Schema validator (zod, valibot, arktype, ...); give a JSON Schema as jsonSchema',
        field.schema,
        context,
      )
    const standard =
      field.schema === undefined
        ? undefined
        : compileSchema(field.schema, { what: `Command "${id}" ${where}.schema`, field: `${where}.schema` })
    if (standard === undefined && field.jsonSchema === undefined)
      refuseField(
        'definition',
        where,
        'needs a jsonSchema (or a Standard Schema as schema)',
        field.jsonSchema,
        context,
      )
    const jsonSchema = (standard?.jsonSchema ?? field.jsonSchema) as JsonSchema
    const hasDefault = 'default' in field && field.default !== undefined
    const defaultValue = hasDefault ? field.default : undefined
    if (optional !== undefined && typeof optional !== 'boolean')
      refuseField('definition', `${where}.optional`, 'must be a boolean', optional, context)
    if (assert !== undefined && typeof assert !== 'function')
      refuseField('definition', `${where}.assert`, 'must be a function', assert, context)
    if (parse !== undefined && typeof parse !== 'function')
      refuseField('definition', `${where}.parse`, 'must be a function', parse, context)
    if (
      receiver !== undefined &&
      (typeof receiver !== 'object' || receiver === null) &&
      typeof receiver !== 'function'
    )
      refuseField('definition', `${where}.receiver`, 'must be an object or be left out', receiver, context)
    const validator = compileJsonSchema(jsonSchema, `Command "${id}" ${where}.jsonSchema`)
    if (hasDefault) {
      if (!isPlainJson(defaultValue))
        refuseField('definition', `${where}.default`, 'must be plain JSON', defaultValue, context)
      const checked = validator.validate(defaultValue)
      if (!checked.ok) {
        refuseField(
          'definition',
          `${where}.default`,
          `does not satisfy the field's jsonSchema (${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')})`,
          defaultValue,
          context,
        )
      }
    }
    const schema: JsonSchema =
      hasDefault && typeof jsonSchema === 'object' ? { ...jsonSchema, default: defaultValue } : jsonSchema
    Object.defineProperty(properties, name, { value: schema, enumerable: true })
    Object.defineProperty(fieldSchemas, name, {
      value: freezeDeep(structuredClone(schema)),
      enumerable: true,
    })
    if (optional !== true) inputRequired.push(name)
    if (optional !== true && !hasDefault) modelRequired.push(name)
    fields.push({
      name,
      optional: optional === true,
      hasDefault,
      defaultValue: hasDefault ? freezeDeep(structuredClone(defaultValue)) : undefined,
      receiver: receiver ?? field,
      assert: assert as Callback | undefined,
      parse: parse as Callback | undefined,
      standard,
    })
  }
  const commandProperty = {
    type: 'string',
    const: id,
    description: `Always "${id}": selects this command.`,
  }
  const schemaOf = (required: readonly string[]): { readonly [keyword: string]: unknown } =>
    freezeDeep({
      type: 'object',
      title: id,
      description: definition.description,
      properties: { [commandField]: commandProperty, ...structuredClone({ ...properties }) },
      required: [...required],
      additionalProperties: false,
    })
  const inputJsonSchema = schemaOf(inputRequired)
  const modelJsonSchema = schemaOf(modelRequired)
  const validator = compileJsonSchema(modelJsonSchema, `Command "${id}" modelJsonSchema`)
  const occur =
    definition.occur === undefined
      ? []
      : Array.isArray(definition.occur)
        ? definition.occur
        : [definition.occur]
  return {
    compiled: Object.freeze({
      id,
      description: definition.description,
      inputJsonSchema,
      modelJsonSchema,
      fieldSchemas: Object.freeze(fieldSchemas),
      definition,
    }),
    validator,
    fields,
    receiver: definition.receiver ?? owner,
    when: definition.when as Callback | undefined,
    occur: occur as Callback[],
    refine: definition.refine as Callback | undefined,
    format: definition.format as Callback | undefined,
  }
}

/** Whether the command is available now (its `when`, called on its receiver). */
export function isAvailable(runtime: CommandRuntime, context: unknown): boolean {
  if (!runtime.when) return true
  return assertBoolean(
    Reflect.apply(runtime.when, runtime.receiver, [context]),
    `command "${runtime.compiled.id}" when`,
  )
}

/** A Standard Schema field's value after its validator (transforms applied); refuses what it refuses. */
function standardValue(schema: CompiledSchema, value: unknown, id: string, name: string): unknown {
  const result = schema.validate(value)
  if (isThenable(result)) {
    void Promise.resolve(result).catch(() => {})
    throw new InvalidDefinitionError(
      `Command "${id}" field "${name}": its schema validates asynchronously, but commands are selected synchronously. Give the field a synchronous schema (no async refinements).`,
      { details: { id, field: `fields.${name}.schema` } },
    )
  }
  if (result.ok) return result.value
  const issues = result.issues.map((issue) => ({
    ...issue,
    path: `/${name}${issue.path === '/' ? '' : issue.path}`,
  }))
  throw new InvalidInputError(
    `Input for command "${id}" does not match its schema: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
    { details: { field: 'input', issues } },
  )
}

/**
 * Reads the fields of a validated submission (defaults for what was left out), runs each field's `assert`
 * and `parse`, then the command's `occur`, `refine` and `format`. Returns the parsed input and the value
 * the handler receives.
 */
export function prepareInput(
  runtime: CommandRuntime,
  submission: object,
  context: unknown,
): { readonly input: Record<string, unknown>; readonly value: unknown } {
  const id = runtime.compiled.id
  const input: Record<string, unknown> = {}
  for (const field of runtime.fields) {
    const descriptor = Object.getOwnPropertyDescriptor(submission, field.name)
    let value: unknown = descriptor && 'value' in descriptor ? descriptor.value : undefined
    if (value === undefined && field.hasDefault) value = structuredClone(field.defaultValue)
    if (value !== undefined || !field.optional) {
      if (field.standard) value = standardValue(field.standard, value, id, field.name)
      if (field.assert) {
        const hook = `command "${id}" field "${field.name}" assert`
        const answer = assertNotThenable(Reflect.apply(field.assert, field.receiver, [value]), hook)
        if (answer !== undefined) {
          throw new InvalidOutputError(
            `${hook} must return nothing (throw to refuse the value), but returned ${describeValue(answer)}.`,
            { details: { hook, received: describeValue(answer) } },
          )
        }
      }
      if (field.parse) {
        value = assertNotThenable(
          Reflect.apply(field.parse, field.receiver, [value]),
          `command "${id}" field "${field.name}" parse`,
        )
      }
    }
    Object.defineProperty(input, field.name, { value, enumerable: true, writable: true, configurable: true })
  }
  Object.freeze(input)
  runtime.occur.forEach((predicate, index) => {
    const hook = runtime.occur.length === 1 ? `command "${id}" occur` : `command "${id}" occur[${index}]`
    if (assertBoolean(Reflect.apply(predicate, runtime.receiver, [input, context]), hook)) {
      const name = predicate.name || undefined
      throw new CommandRejectedError(
        `Command "${id}" was refused: ${hook}${name ? ` (${name})` : ''} holds for this input. Change the input, or choose another command.`,
        { details: { commandId: id, predicate: index, predicateName: name } },
      )
    }
  })
  if (runtime.refine) {
    const hook = `command "${id}" refine`
    const answer = assertNotThenable(Reflect.apply(runtime.refine, runtime.receiver, [input, context]), hook)
    if (answer !== undefined) {
      throw new InvalidOutputError(
        `${hook} must return nothing (throw to refuse the input), but returned ${describeValue(answer)}.`,
        { details: { hook, received: describeValue(answer) } },
      )
    }
  }
  const value = runtime.format
    ? assertNotThenable(
        Reflect.apply(runtime.format, runtime.receiver, [input, context]),
        `command "${id}" format`,
      )
    : input
  return { input, value }
}
