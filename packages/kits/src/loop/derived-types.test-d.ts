import type { JsonSchema } from '@agent-core/core'
import type {
  GenerateStructuredRequest,
  StandardSchemaV1,
  StructuredMode,
  StructuredOutput,
} from '@agent-core/kits/models'
import { describe, expectTypeOf, it } from 'vitest'
import type { StructuredAnswerOptions } from './index.js'

// The options as they were declared before they were derived from the models kit's request: a user's
// value of either type is a value of the other.
interface DeclaredStructuredAnswerOptions<Value> {
  readonly schema?: JsonSchema | StandardSchemaV1<unknown, Value> | undefined
  readonly output?: StructuredOutput<Value> | undefined
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly jsonSchema?: JsonSchema | undefined
  readonly maxCorrections?: number | undefined
  readonly mode?: StructuredMode | undefined
}

describe('types derived from the models kit', () => {
  it('StructuredAnswerOptions is what it declared, the fields of GenerateStructuredRequest', () => {
    type City = { city: string }
    expectTypeOf<StructuredAnswerOptions<City>>().toEqualTypeOf<DeclaredStructuredAnswerOptions<City>>()
    expectTypeOf<StructuredAnswerOptions>().toEqualTypeOf<DeclaredStructuredAnswerOptions<unknown>>()
    expectTypeOf<StructuredAnswerOptions<City>['schema']>().toEqualTypeOf<
      GenerateStructuredRequest<City>['schema']
    >()
    expectTypeOf<StructuredAnswerOptions<City>['output']>().toEqualTypeOf<
      GenerateStructuredRequest<City>['output']
    >()
    expectTypeOf<StructuredAnswerOptions<City>['mode']>().toEqualTypeOf<GenerateStructuredRequest['mode']>()
    expectTypeOf<keyof StructuredAnswerOptions>().toEqualTypeOf<
      'schema' | 'output' | 'name' | 'description' | 'jsonSchema' | 'maxCorrections' | 'mode'
    >()
  })
})
