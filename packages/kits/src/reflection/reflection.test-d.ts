import type { ModelRequest } from '@agent-core/core'
import { createScriptedModel, defineAgent, structuredAnswer } from '@agent-core/kits/loop'
import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  defineReflection,
  type ReflectionResult,
  type ReflectionStep,
  type ReflectionVerdict,
  reflectionVerdictOutput,
} from './index.js'

const models = new ModelCalls([
  defineModelBinding({
    id: 'writer',
    identity: 'w',
    invoke: (request: ModelRequest) => String(request.messages.length),
  }),
])

describe('reflection types', () => {
  it('takes bindings and agents of any answer type as steps', () => {
    const textAgent = defineAgent({ model: createScriptedModel([]) })
    const jsonAgent = defineAgent({
      model: createScriptedModel([]),
      answer: structuredAnswer({ schema: z.object({ title: z.string() }) }),
    })
    const appAgent = defineAgent<string, { userId: string }>({ model: createScriptedModel([]) })
    expectTypeOf({ models, modelId: 'writer', timeoutMs: 1 }).toExtend<ReflectionStep>()
    expectTypeOf(textAgent).toExtend<ReflectionStep>()
    expectTypeOf(jsonAgent).toExtend<ReflectionStep>()
    const reflection = defineReflection<{ userId: string }>({
      drafter: appAgent,
      critic: { models, modelId: 'writer', timeoutMs: 5 },
    })
    expectTypeOf(reflection.run).parameter(1).toExtend<{ app?: { userId: string } } | undefined>()
    // @ts-expect-error: a critic is required
    defineReflection({ drafter: textAgent })
    // @ts-expect-error: a plain function is not a step (wrap it in a binding)
    defineReflection({ critic: async () => 'x' })
  })

  it('narrows the result by reason', async () => {
    const reflection = defineReflection({
      critic: { models, modelId: 'writer', timeoutMs: 5 },
      reviser: { models, modelId: 'writer', timeoutMs: 5 },
    })
    const result = await reflection.run({ prompt: 'x', draft: 'y' })
    expectTypeOf(result).toEqualTypeOf<ReflectionResult>()
    if (result.reason === 'accepted') {
      expectTypeOf(result.output).toEqualTypeOf<string>()
      expectTypeOf(result.verdict).toEqualTypeOf<ReflectionVerdict>()
    } else {
      expectTypeOf(result.output).toEqualTypeOf<string | undefined>()
    }
    if (result.reason === 'error') expectTypeOf(result.error).toBeUnknown()
    // @ts-expect-error: only an error result has an error
    result.error
    expectTypeOf(result.rounds[0]!.verdict).toEqualTypeOf<ReflectionVerdict | undefined>()
    expectTypeOf(reflectionVerdictOutput().parse).returns.resolves.toExtend<
      { ok: true; value: ReflectionVerdict } | { ok: false }
    >()
  })
})
