/**
 * The engine's types that the signatures of `@agent-core/mock/node`, `/web` and `/vitest` use, re-exported
 * from `@agent-core/mock` (where each is declared and documented, once) so that code using one of those
 * entries can import everything it needs from it. Each entry re-exports this list whole
 * (`export type * from`); the list is kept here, once.
 */
export type {
  MockBudget,
  MockChaos,
  MockComputedReply,
  MockEndpoint,
  MockFault,
  MockFixture,
  MockGPT,
  MockGPTOptions,
  MockGPTScope,
  MockHttpBody,
  MockHttpRequest,
  MockHttpResponse,
  MockJournalStats,
  MockMatch,
  MockMessageView,
  MockReply,
  MockRequestView,
  MockScriptEntry,
  MockScriptProblem,
  MockStreamController,
  MockStreamStep,
  MockToolCallScript,
  MockToolCallView,
  MockToolResultView,
  MockUsage,
  RecordedRequest,
} from '@agent-core/mock'
