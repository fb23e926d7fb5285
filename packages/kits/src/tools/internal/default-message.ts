import type { ToolTemplateInput } from '../tool-call-outcome.js'
import { toolRefusal } from './pass-host.js'

// Loaded with the pass (tool-pass.ts); like it, this module imports the rest of the kit through pass-host.ts.

/** A readable text for any thrown value, even one whose `toString` throws. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return 'an unprintable value was thrown'
  }
}

/** The text the model reads when no template provider answered. */
export function defaultMessage(input: ToolTemplateInput): { content: string; isError: boolean } {
  switch (input.status) {
    case 'completed': {
      const { output } = input
      return { content: typeof output === 'string' ? output : JSON.stringify(output ?? null), isError: false }
    }
    case 'rejected': {
      const { reason, by, instruction } = input.rejection
      return { content: toolRefusal({ by, reason, instruction, toolId: input.call.toolId }), isError: true }
    }
    case 'failed':
      return { content: `The call to ${input.call.toolId} failed: ${errorText(input.error)}`, isError: true }
  }
}
