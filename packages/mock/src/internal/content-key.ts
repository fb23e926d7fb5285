import type { NormalizedRequest } from './normalize.js'

/**
 * What the content of an answer derives from: the JSON text of `[model, messages, tool names, format type,
 * schema or null]`. Every request without a cached answer hashes it for its content seed, so it is written
 * piece by piece: a message of role and text alone (the normalizers build them `{ role, text }`, in that
 * order) as a template, any other message, the names and the schema through `JSON.stringify`. A property
 * test compares it with serializing the array whole.
 */
export function contentKeyOf(request: NormalizedRequest): string {
  let key = `[${JSON.stringify(request.model)},[`
  const messages = request.messages
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as NormalizedRequest['messages'][number]
    if (i > 0) key += ','
    key +=
      m.toolCalls === undefined && m.toolCallId === undefined
        ? `{"role":${JSON.stringify(m.role)},"text":${JSON.stringify(m.text)}}`
        : JSON.stringify(m)
  }
  const format = request.format
  const names = request.tools.length === 0 ? '[]' : JSON.stringify(request.tools.map((t) => t.name))
  const schema = format.type === 'json_schema' ? (JSON.stringify(format.schema) ?? 'null') : 'null'
  return `${key}],${names},${JSON.stringify(format.type)},${schema}]`
}
