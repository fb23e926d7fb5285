/** Test helpers: read a streamed body into SSE events, keeping whatever arrived before an error. */

export interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

export interface SseRead {
  readonly events: SseEvent[]
  /** The error that ended the body early (a dropped connection), if any. */
  readonly error: unknown
}

/** Parses complete SSE events out of `text` (events end with a blank line). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = []
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue
    let event: string | undefined
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
    }
    out.push({ event, data: data.join('\n') })
  }
  return out
}

/** Reads the whole body; a read error (disconnect) is returned, not thrown. */
export async function readSse(response: Response): Promise<SseRead> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  let error: unknown
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch (e) {
    error = e
  }
  return { events: parseSse(text), error }
}

/** The JSON payloads of `data:` events, `[DONE]` excluded. */
export function payloads(events: readonly SseEvent[]): Record<string, unknown>[] {
  return events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Record<string, unknown>)
}
