import type { ToolTemplateInput } from '../tool-call-outcome.js'

const WHO = {
  person: 'the person reviewing it',
  policy: 'policy',
  'earlier-refusal': 'an earlier refusal in the same step',
} as const

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
      const lines = [`The call to ${input.call.toolId} was not run: it was refused by ${WHO[by]}. ${reason}`]
      if (instruction !== undefined) lines.push(`Instruction from the person who refused it: ${instruction}`)
      return { content: lines.join('\n'), isError: true }
    }
    case 'failed':
      return { content: `The call to ${input.call.toolId} failed: ${errorText(input.error)}`, isError: true }
  }
}
