/** `pnpm start`: builds the page, starts MockGPT and serves the chat on loopback until Ctrl-C. */
import { startChatApp } from './server.js'

const port = Number(process.env.PORT ?? 3000)
const app = await startChatApp({ port })
console.log(`chat: ${app.url}`)
process.once('SIGINT', () => {
  void app.close().then(() => process.exit(0))
})
