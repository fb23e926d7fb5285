import type { OperationContext } from '@agent-core/core'
import { createScriptedModel } from '@agent-core/kits/loop'
import { describe, expectTypeOf, it } from 'vitest'
import {
  defineAgentFamily,
  type FamilyBranch,
  type FamilyChildReport,
  type FamilyGrant,
  type FamilyResult,
} from './index.js'

describe('family types', () => {
  it('types the app through childApp, members and the run context', async () => {
    const family = defineAgentFamily<{ userId: string; scopes?: readonly string[] }>({
      scopes: ['web'],
      childApp: (grant, app) => {
        expectTypeOf(grant).toEqualTypeOf<FamilyGrant>()
        expectTypeOf(app.userId).toEqualTypeOf<string>()
        return { ...app, scopes: grant.scopes }
      },
      members: [
        { id: 'writer', agent: { model: createScriptedModel([]), system: 'Write.' } },
        {
          id: 'lead',
          run: (branch, context) => {
            expectTypeOf(branch).toEqualTypeOf<FamilyBranch<{ userId: string; scopes?: readonly string[] }>>()
            expectTypeOf(context).toEqualTypeOf<
              OperationContext<{ userId: string; scopes?: readonly string[] }>
            >()
            return branch.spawn({ children: [{ member: 'writer', prompt: 'x' }] })
          },
        },
      ],
    })
    const result = await family.run({ children: [{ member: 'lead' }] }, { app: { userId: 'u1' } })
    expectTypeOf(result).toEqualTypeOf<FamilyResult>()
    // @ts-expect-error: the app must be the family's App
    await family.run({ children: [] }, { app: { user: 1 } })
  })

  it('narrows a child report by status', () => {
    const line = (child: FamilyChildReport): string => {
      if (child.status === 'done') return String(child.value)
      if (child.status === 'failed') return String(child.error)
      expectTypeOf(child.started).toEqualTypeOf<boolean>()
      // @ts-expect-error: a stopped child has no value
      return child.value
    }
    expectTypeOf(line).returns.toEqualTypeOf<string>()
  })

  it('refuses tools on a member agent: a child gets the tools of its grant', () => {
    defineAgentFamily({
      // @ts-expect-error: tools are granted per child, not set on the member
      members: [{ id: 'w', agent: { model: createScriptedModel([]), tools: [] } }],
    })
  })
})
