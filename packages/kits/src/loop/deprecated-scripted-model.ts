import type * as testing from '@agent-core/kits/loop/testing'
import { createScriptedModel as scriptedModel } from './testing/scripted-model.js'

// The scripted model moved to `@agent-core/kits/loop/testing`; these names keep the loop's old exports
// working for one release. Each is the same function or type as the one in the testing subpath.
//
// The function is imported from the module behind that subpath, not from the subpath itself (the types
// are, so that the declarations name them as before): both entries then share scripted-model.ts, and the
// build puts it into the chunk they already share (the loop's check and token helpers, which the scripted
// model uses), so `createScriptedModel` is still one function, while importing the loop no longer loads
// `dist/loop/testing/index.js`: one module less at import (docs/design/cold-import.md).

/**
 * Creates a scripted chat model for tests: the same function as `createScriptedModel` of
 * `@agent-core/kits/loop/testing`.
 * @deprecated Import `createScriptedModel` from `@agent-core/kits/loop/testing`; this export is removed in
 *   the next release.
 * @example
 * ```ts
 * import { createScriptedModel } from '@agent-core/kits/loop'
 * const model = createScriptedModel([{ text: 'Hello!' }])
 * ```
 */
export const createScriptedModel: typeof testing.createScriptedModel = scriptedModel

/**
 * A scripted chat model for tests.
 * @deprecated Import `ScriptedModel` from `@agent-core/kits/loop/testing`; this export is removed in the
 *   next release.
 * @example
 * ```ts
 * import type { ScriptedModel } from '@agent-core/kits/loop'
 * declare const model: ScriptedModel
 * model.assertDone()
 * ```
 */
export type ScriptedModel = testing.ScriptedModel

/**
 * Options of a scripted chat model.
 * @deprecated Import `ScriptedModelOptions` from `@agent-core/kits/loop/testing`; this export is removed in
 *   the next release.
 * @example
 * ```ts
 * import type { ScriptedModelOptions } from '@agent-core/kits/loop'
 * const options: ScriptedModelOptions = { identity: 'scripted', delayMs: 0 }
 * ```
 */
export type ScriptedModelOptions = testing.ScriptedModelOptions

/**
 * A tool call in a scripted turn.
 * @deprecated Import `ScriptedToolCall` from `@agent-core/kits/loop/testing`; this export is removed in the
 *   next release.
 * @example
 * ```ts
 * import type { ScriptedToolCall } from '@agent-core/kits/loop'
 * const call: ScriptedToolCall = { name: 'weather', input: { city: 'Lyon' } }
 * ```
 */
export type ScriptedToolCall = testing.ScriptedToolCall

/**
 * One turn of a scripted chat model.
 * @deprecated Import `ScriptedTurn` from `@agent-core/kits/loop/testing`; this export is removed in the
 *   next release.
 * @example
 * ```ts
 * import type { ScriptedTurn } from '@agent-core/kits/loop'
 * const turn: ScriptedTurn = { text: 'It is sunny in Lyon.' }
 * ```
 */
export type ScriptedTurn = testing.ScriptedTurn
