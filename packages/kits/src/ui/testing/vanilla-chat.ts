/**
 * The AI SDK's own chat client without a framework: `AbstractChat` (what `useChat` wraps) with a plain
 * state, for tests that drive the real client against the handler.
 */
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai'

class PlainState<Message extends UIMessage> implements ChatState<Message> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  messages: Message[]
  constructor(messages: Message[] = []) {
    this.messages = messages
  }
  pushMessage = (message: Message): void => {
    this.messages = [...this.messages, message]
  }
  popMessage = (): void => {
    this.messages = this.messages.slice(0, -1)
  }
  replaceMessage = (index: number, message: Message): void => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)]
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

export class VanillaChat<Message extends UIMessage = UIMessage> extends AbstractChat<Message> {
  constructor(init: ChatInit<Message>) {
    super({ ...init, state: new PlainState<Message>(init.messages) })
  }
}
