import type * as Root from '@agent-core/mock'
import type * as Node from '@agent-core/mock/node'
import type * as Vitest from '@agent-core/mock/vitest'
import type * as Web from '@agent-core/mock/web'
import { describe, expectTypeOf, it } from 'vitest'

// Every engine type `/node`, `/web` and `/vitest` re-export (internal/engine-types.ts) is the one
// `@agent-core/mock` declares, under the same name.
type RootTypes = [
  Root.MockBudget,
  Root.MockChaos,
  Root.MockComputedReply,
  Root.MockEndpoint,
  Root.MockFault,
  Root.MockFixture,
  Root.MockGPT,
  Root.MockGPTOptions,
  Root.MockGPTScope,
  Root.MockHttpBody,
  Root.MockHttpRequest,
  Root.MockHttpResponse,
  Root.MockJournalStats,
  Root.MockMatch,
  Root.MockMessageView,
  Root.MockReply,
  Root.MockRequestView,
  Root.MockScriptEntry,
  Root.MockScriptProblem,
  Root.MockStreamController,
  Root.MockStreamStep,
  Root.MockToolCallScript,
  Root.MockToolCallView,
  Root.MockToolResultView,
  Root.MockUsage,
  Root.RecordedRequest,
]
type NodeTypes = [
  Node.MockBudget,
  Node.MockChaos,
  Node.MockComputedReply,
  Node.MockEndpoint,
  Node.MockFault,
  Node.MockFixture,
  Node.MockGPT,
  Node.MockGPTOptions,
  Node.MockGPTScope,
  Node.MockHttpBody,
  Node.MockHttpRequest,
  Node.MockHttpResponse,
  Node.MockJournalStats,
  Node.MockMatch,
  Node.MockMessageView,
  Node.MockReply,
  Node.MockRequestView,
  Node.MockScriptEntry,
  Node.MockScriptProblem,
  Node.MockStreamController,
  Node.MockStreamStep,
  Node.MockToolCallScript,
  Node.MockToolCallView,
  Node.MockToolResultView,
  Node.MockUsage,
  Node.RecordedRequest,
]
type WebTypes = [
  Web.MockBudget,
  Web.MockChaos,
  Web.MockComputedReply,
  Web.MockEndpoint,
  Web.MockFault,
  Web.MockFixture,
  Web.MockGPT,
  Web.MockGPTOptions,
  Web.MockGPTScope,
  Web.MockHttpBody,
  Web.MockHttpRequest,
  Web.MockHttpResponse,
  Web.MockJournalStats,
  Web.MockMatch,
  Web.MockMessageView,
  Web.MockReply,
  Web.MockRequestView,
  Web.MockScriptEntry,
  Web.MockScriptProblem,
  Web.MockStreamController,
  Web.MockStreamStep,
  Web.MockToolCallScript,
  Web.MockToolCallView,
  Web.MockToolResultView,
  Web.MockUsage,
  Web.RecordedRequest,
]
type VitestTypes = [
  Vitest.MockBudget,
  Vitest.MockChaos,
  Vitest.MockComputedReply,
  Vitest.MockEndpoint,
  Vitest.MockFault,
  Vitest.MockFixture,
  Vitest.MockGPT,
  Vitest.MockGPTOptions,
  Vitest.MockGPTScope,
  Vitest.MockHttpBody,
  Vitest.MockHttpRequest,
  Vitest.MockHttpResponse,
  Vitest.MockJournalStats,
  Vitest.MockMatch,
  Vitest.MockMessageView,
  Vitest.MockReply,
  Vitest.MockRequestView,
  Vitest.MockScriptEntry,
  Vitest.MockScriptProblem,
  Vitest.MockStreamController,
  Vitest.MockStreamStep,
  Vitest.MockToolCallScript,
  Vitest.MockToolCallView,
  Vitest.MockToolResultView,
  Vitest.MockUsage,
  Vitest.RecordedRequest,
]

describe('the engine types of each entry', () => {
  it("are @agent-core/mock's own", () => {
    expectTypeOf<NodeTypes>().toEqualTypeOf<RootTypes>()
    expectTypeOf<WebTypes>().toEqualTypeOf<RootTypes>()
    expectTypeOf<VitestTypes>().toEqualTypeOf<RootTypes>()
    expectTypeOf<Vitest.MockGPTServer>().toEqualTypeOf<Node.MockGPTServer>()
  })
})
