import type { ChatMessage, MaybePromise, OperationContext } from '@agent-core/core'
import type {
  AgentEvent,
  AgentPendingCall,
  AgentRunRequest,
  ApprovalResolution,
  QuestionResolution,
} from '@agent-core/kits/loop'
import { describe, expectTypeOf, it } from 'vitest'
import type { FamilyChildRequest } from './index.js'

type App = { userId: string }

describe('family types derived from the loop', () => {
  it("a child request's agent fields are the loop's AgentRunRequest fields", () => {
    expectTypeOf<FamilyChildRequest<App>['prompt']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<FamilyChildRequest<App>['prompt']>().toEqualTypeOf<AgentRunRequest<App>['prompt']>()
    expectTypeOf<FamilyChildRequest<App>['resolveApproval']>().toEqualTypeOf<
      | ((call: AgentPendingCall, context: OperationContext<App>) => MaybePromise<ApprovalResolution>)
      | undefined
    >()
    expectTypeOf<FamilyChildRequest<App>['answerQuestion']>().toEqualTypeOf<
      | ((call: AgentPendingCall, context: OperationContext<App>) => MaybePromise<QuestionResolution>)
      | undefined
    >()
    expectTypeOf<FamilyChildRequest<App>['onEvent']>().toEqualTypeOf<AgentRunRequest<App>['onEvent']>()
    // `messages` stays the family's own: chat messages only (the loop also takes custom inputs).
    expectTypeOf<FamilyChildRequest<App>['messages']>().toEqualTypeOf<readonly ChatMessage[] | undefined>()
  })

  it('takes the listeners it took, and refuses an async one as the child run does', () => {
    const events: AgentEvent[] = []
    const declared: (event: AgentEvent) => void = (event) => {
      events.push(event)
    }
    const children: FamilyChildRequest[] = [
      { member: 'writer', prompt: 'x', onEvent: (event) => events.push(event) },
      { member: 'writer', prompt: 'x', onEvent: declared },
      {
        member: 'writer',
        prompt: 'x',
        resolveApproval: async () => ({ type: 'approve' }),
        answerQuestion: () => ({ type: 'answer', value: 1 }),
      },
    ]
    expectTypeOf(children).toEqualTypeOf<FamilyChildRequest[]>()
    const refused: FamilyChildRequest = {
      member: 'writer',
      // @ts-expect-error: an async listener is refused (the child's run would reject with RejectedThenableError)
      onEvent: async (event: AgentEvent) => events.push(event),
    }
    expectTypeOf(refused.member).toEqualTypeOf<string>()
  })
})
