/**
 * The chat page: the AI SDK's own client (`AbstractChat`, what `useChat` wraps, with a plain state that
 * redraws the page) over its default HTTP transport, against `/api/chat`. Bundled by esbuild for the
 * browser (see server.ts).
 */
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai'

interface ProgressData {
  toolCallId: string
  toolId: string
  sequence: number
  message?: string
  ratio?: number
}
type Message = UIMessage<
  { reason?: string; usage?: { totalTokens: number } },
  { 'tool-progress': ProgressData }
>

/** A chat state that redraws the page after every change. */
class PageState implements ChatState<Message> {
  #status: ChatStatus = 'ready'
  #messages: Message[] = []
  error: Error | undefined = undefined
  constructor(readonly draw: () => void) {}
  get status(): ChatStatus {
    return this.#status
  }
  set status(status: ChatStatus) {
    this.#status = status
    this.draw()
  }
  get messages(): Message[] {
    return this.#messages
  }
  set messages(messages: Message[]) {
    this.#messages = messages
    this.draw()
  }
  pushMessage = (message: Message): void => {
    this.messages = [...this.#messages, message]
  }
  popMessage = (): void => {
    this.messages = this.#messages.slice(0, -1)
  }
  replaceMessage = (index: number, message: Message): void => {
    this.messages = this.#messages.map((m, i) => (i === index ? message : m))
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

class PageChat extends AbstractChat<Message> {
  constructor(init: ChatInit<Message>, draw: () => void) {
    super({ ...init, state: new PageState(draw) })
  }
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const el = (tag: string, className: string, text = ''): HTMLElement => {
  const node = document.createElement(tag)
  node.className = className
  node.textContent = text
  return node
}

function drawPart(part: Message['parts'][number]): HTMLElement | undefined {
  if (part.type === 'text') return el('p', 'text', part.text)
  if (part.type === 'reasoning') return el('p', 'reasoning', part.text)
  if (part.type === 'data-tool-progress') {
    const box = el('div', 'progress')
    box.dataset.toolCallId = part.data.toolCallId
    const bar = document.createElement('progress')
    bar.max = 1
    bar.value = part.data.ratio ?? 0
    box.append(bar, el('span', 'progress-message', part.data.message ?? ''))
    return box
  }
  if (part.type.startsWith('tool-')) {
    const tool = part as Extract<Message['parts'][number], { toolCallId: string }> & {
      state: string
      input?: unknown
      output?: unknown
      errorText?: string
      approval?: { id: string }
    }
    const box = el('div', 'tool')
    box.dataset.state = tool.state
    box.dataset.toolCallId = tool.toolCallId
    box.append(el('div', 'tool-head', `${part.type.slice(5)} ${JSON.stringify(tool.input ?? {})}`))
    if (tool.state === 'approval-requested' && tool.approval) {
      const id = tool.approval.id
      const approve = el('button', 'approve', 'Approve') as HTMLButtonElement
      approve.onclick = () => void chat.addToolApprovalResponse({ id, approved: true })
      const refuse = el('button', 'refuse', 'Refuse') as HTMLButtonElement
      refuse.onclick = () =>
        void chat.addToolApprovalResponse({ id, approved: false, reason: 'Refused on the page.' })
      box.append(approve, refuse)
    } else if (tool.state === 'output-available') {
      box.append(el('pre', 'tool-output', JSON.stringify(tool.output)))
    } else if (tool.state === 'output-error') {
      box.append(el('div', 'tool-error', tool.errorText ?? 'failed'))
    } else if (tool.state === 'output-denied') {
      box.append(el('div', 'tool-denied', 'refused'))
    }
    return box
  }
  return undefined
}

function draw(): void {
  const list = $('messages')
  list.replaceChildren()
  for (const message of chat?.messages ?? []) {
    const box = el('div', `message ${message.role}`)
    box.dataset.role = message.role
    for (const part of message.parts) {
      const node = drawPart(part)
      if (node) box.append(node)
    }
    if (message.metadata?.reason) box.dataset.reason = message.metadata.reason
    list.append(box)
  }
  document.body.dataset.status = chat?.status ?? 'ready'
  $('status').textContent = chat?.error ? `error: ${chat.error.message}` : (chat?.status ?? '')
}

const chat: PageChat = new PageChat(
  {
    transport: new DefaultChatTransport<Message>({ api: '/api/chat' }),
    // After a click on Approve or Refuse, the page sends the answer at once: the run resumes.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  },
  draw,
)

$<HTMLFormElement>('form').addEventListener('submit', (event) => {
  event.preventDefault()
  const input = $<HTMLInputElement>('input')
  if (input.value.trim() === '') return
  void chat.sendMessage({ text: input.value })
  input.value = ''
})
draw()
