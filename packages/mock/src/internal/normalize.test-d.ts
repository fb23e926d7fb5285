import type { JsonSchema, JsonSchemaValidator, ResponseFormat } from '@agent-core/core'
import { describe, expectTypeOf, it } from 'vitest'
import type { NormalizedFormat } from './normalize.js'

describe('NormalizedFormat is derived from core', () => {
  it("is core's ResponseFormat with a validator and no strict, as it was declared", () => {
    expectTypeOf<NormalizedFormat>().toEqualTypeOf<
      | { readonly type: 'text' }
      | { readonly type: 'json_object' }
      | {
          readonly type: 'json_schema'
          readonly name: string
          readonly schema: JsonSchema
          readonly validator: JsonSchemaValidator
        }
    >()
    expectTypeOf<NormalizedFormat['type']>().toEqualTypeOf<ResponseFormat['type']>()
  })
})
