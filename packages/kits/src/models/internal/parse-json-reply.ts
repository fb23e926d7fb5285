/** What {@link parseJsonReply} found. */
export type JsonReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string }

const THINKING = /^\s*<(think|thinking|reasoning)>[\s\S]*?<\/\1>/i
const FENCE = /```[ \t]*[\w+-]*[ \t]*\r?\n([\s\S]*?)```/g

function tryParse(text: string): JsonReply {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

/** The text from the first `{` or `[` to the last `}` or `]`, when there is such a span. */
function bracketed(text: string): string | undefined {
  const start = text.search(/[[{]/)
  if (start < 0) return undefined
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'))
  return end > start ? text.slice(start, end + 1) : undefined
}

/**
 * Reads one JSON value out of a model's reply without a provider JSON mode: drops a leading reasoning
 * block (`<think>...</think>`), then tries the content of each Markdown code fence, the whole reply, and
 * the span from the first bracket to the last, in that order. The first that parses wins; otherwise the
 * parse error of the most likely candidate is reported.
 */
export function parseJsonReply(reply: string): JsonReply {
  const text = reply.replace(THINKING, '').trim()
  if (text === '') return { ok: false, message: 'the reply is empty' }
  const fenced = [...text.matchAll(FENCE)].map((match) => (match[1] ?? '').trim())
  let first: JsonReply | undefined
  for (const candidate of [...fenced, text, bracketed(text)]) {
    if (candidate === undefined || candidate === '') continue
    const parsed = tryParse(candidate)
    if (parsed.ok) return parsed
    first ??= parsed
  }
  return {
    ok: false,
    message: `the reply is not valid JSON (${first?.ok === false ? first.message : 'no JSON found'})`,
  }
}
