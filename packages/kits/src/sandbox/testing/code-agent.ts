/**
 * The agent of the code tool's loop tests, built the same way in the test process and in the child process
 * that resumes it: a scripted model whose turns call `run_code`, and a code tool over the shop's tools.
 */
import { defineAgent } from '@agent-core/kits/loop'
import { createScriptedModel, type ScriptedTurn } from '@agent-core/kits/loop/testing'
import { defineCodeTool, MemoryRecordingStore, type SandboxRecording } from '../index.js'
import { shop } from './fixtures.js'

export function codeAgent(options: {
  readonly turns: readonly ScriptedTurn[]
  readonly effects?: string | undefined
  readonly recordings?: Readonly<Record<string, SandboxRecording>> | undefined
  readonly keepGlobals?: boolean | undefined
}) {
  const { tools, runs } = shop({ effects: options.effects })
  const recordings = new MemoryRecordingStore(options.recordings ?? {})
  const runCode = defineCodeTool({
    tools: [...tools],
    recordings,
    ...(options.keepGlobals ? { keepGlobals: true } : {}),
  })
  const model = createScriptedModel(options.turns)
  const agent = defineAgent({ model, tools: [runCode], system: 'You handle refunds with code.' })
  return { agent, model, runs, recordings, runCode }
}

/** A turn in which the model writes one script. */
export function codeTurn(code: string): ScriptedTurn {
  return { toolCalls: [{ name: 'run_code', input: { code } }] }
}
